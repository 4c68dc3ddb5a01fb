package testport

import (
	"net"
	"strconv"
	"testing"
)

func TestFreeHandsOutDistinctBindablePortsBelowTheEphemeralRange(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		port, err := Free()
		if err != nil {
			t.Fatal(err)
		}
		if seen[port] {
			t.Fatalf("port %s handed out twice", port)
		}
		seen[port] = true
		n, _ := strconv.Atoi(port)
		if n < lowestPort || n >= ephemeralStart() {
			t.Fatalf("port %d is outside %d-%d", n, lowestPort, ephemeralStart()-1)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatalf("port %s was handed out but cannot be bound: %v", port, err)
		}
		ln.Close()
	}
}

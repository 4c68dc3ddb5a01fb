// Package testport hands tests, and the bench harness, a loopback TCP port
// for a server that must be told its port before it starts (a
// redis-server, a CLI flag), in a way that nothing else started by a test
// can take in the meantime.
//
// A port picked by listening on port 0 and closing is in the kernel's
// ephemeral range, which every later listen on port 0 and every outgoing
// connection draws from: on a busy test machine one of them can take it
// before the server binds (CI saw "bind: address already in use"). Free
// picks below that range instead, and holds a lock on the port for the
// life of the test process, so that two test processes picking at once
// never agree either. The lock files, empty, stay in
// os.TempDir()/weft-testport for the next process.
package testport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowestPort is the lowest port Free hands out: above the well-known and
// registered ports services on a test machine listen on.
const lowestPort = 20000

// defaultEphemeralStart is where the ephemeral range starts when the
// system does not say (Linux's default; macOS and BSD start higher).
const defaultEphemeralStart = 32768

// mu serialises Free, and with it the lock bookkeeping.
var mu sync.Mutex

// Free returns a loopback TCP port that no other caller of Free, in this
// process or another, gets while this process lives, and that the kernel
// does not hand to a port-0 listener or an outgoing connection. It was
// free when Free returned it; a process that is not a test can still take
// it, which on a test machine nothing does.
func Free() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	end := ephemeralStart()
	span := end - lowestPort
	first := rand.IntN(span)
	for i := range span {
		port := lowestPort + (first+i)%span
		locked, err := lockPort(port)
		if err != nil {
			return "", err
		}
		if !locked {
			continue // a test process, this one or another, holds it
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // something else listens there
		}
		ln.Close()
		return strconv.Itoa(port), nil
	}
	return "", fmt.Errorf("testport: no free port in %d-%d, every one is taken or locked by another test process", lowestPort, end-1)
}

// ephemeralStart returns the first port of the kernel's ephemeral range.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return defaultEphemeralStart
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return defaultEphemeralStart
	}
	start, err := strconv.Atoi(fields[0])
	if err != nil || start <= lowestPort+1000 {
		return defaultEphemeralStart
	}
	return start
}

package goid_test

import (
	"testing"

	"github.com/weftmcp/weft/internal/goid"
)

// A goroutine's number is not zero, stays the same within it, and differs
// from another goroutine's.
func TestCurrentTellsGoroutinesApart(t *testing.T) {
	here := goid.Current()
	if here == 0 {
		t.Fatal("Current() = 0; want the goroutine's number")
	}
	if again := goid.Current(); again != here {
		t.Fatalf("Current() = %d, then %d on the same goroutine", here, again)
	}
	other := make(chan uint64)
	go func() { other <- goid.Current() }()
	if there := <-other; there == here || there == 0 {
		t.Fatalf("another goroutine's Current() = %d; this one's is %d", there, here)
	}
}

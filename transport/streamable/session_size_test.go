package streamable

import (
	"testing"
	"unsafe"
)

// sessionSizeBudget is the most a legacy session may take on a 64-bit
// platform: a size class of Go's allocator (the next is 256 B).
const sessionSizeBudget = 240

// A session's fields must not grow past the allocator size class it has:
// an idle one holds little more.
func TestSessionFitsItsSizeClass(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the budget is for 64-bit platforms")
	}
	if got := unsafe.Sizeof(session{}); got > sessionSizeBudget {
		t.Errorf("a session takes %d B, over its budget of %d B: make what only some sessions use on first use", got, sessionSizeBudget)
	}
}

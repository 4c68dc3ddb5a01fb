package server

import (
	"testing"
	"unsafe"
)

// sessionSizeBudget is the most a Session may take on a 64-bit platform:
// a size class of Go's allocator (the next is 480 B). What a session
// holds only once it uses a feature goes in sessionUse, not in Session.
const sessionSizeBudget = 448

// Every session, idle or not, is a Session: its fields must not grow past
// the allocator size class it has.
func TestSessionFitsItsSizeClass(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the budget is for 64-bit platforms")
	}
	if got := unsafe.Sizeof(Session{}); got > sessionSizeBudget {
		t.Errorf("a Session takes %d B, over its budget of %d B: put what only some sessions use in sessionUse", got, sessionSizeBudget)
	}
}

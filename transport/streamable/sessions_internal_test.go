package streamable

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/weftmcp/weft/jsonrpc"
)

// The sessions of one client share the key it is counted under, whichever
// copy of it each initialize brought, and its count goes with its last
// session.
func TestSessionsOfOneClientShareItsKey(t *testing.T) {
	h := NewHandler(streamServer{streams: make(chan jsonrpc.Stream)}, &HandlerOptions{SessionIdleTimeout: -1})
	key := func() string { return strings.Clone("address 127.0.0.1") } // as each request's ClientKey makes it
	a, err := h.sessions.create("", key())
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.sessions.create("", key())
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.StringData(a.client) != unsafe.StringData(b.client) {
		t.Error("two sessions of one client each hold a copy of its key")
	}
	count := func() int {
		h.sessions.mu.Lock()
		defer h.sessions.mu.Unlock()
		return h.sessions.ofClient["address 127.0.0.1"].n
	}
	if got := count(); got != 2 {
		t.Errorf("the client holds %d sessions, want 2", got)
	}
	h.sessions.end(a, ErrSessionEnded)
	if got := count(); got != 1 {
		t.Errorf("after one ended, the client holds %d sessions, want 1", got)
	}
	h.sessions.end(b, ErrSessionEnded)
	h.sessions.mu.Lock()
	left := len(h.sessions.ofClient)
	h.sessions.mu.Unlock()
	if left != 0 {
		t.Errorf("%d clients counted once every session ended, want 0", left)
	}
}

// len returns the number of sessions the table holds, started here or
// taken over.
func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

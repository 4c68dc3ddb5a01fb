package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// tap wraps the client's stream and records every message in both
// directions, in order, so tests can assert what went over the wire. A
// hook may alter or hold back a message the client writes.
type tap struct {
	jsonrpc.Stream

	mu      sync.Mutex
	entries []tapEntry
	changed chan struct{} // closed and replaced on every new entry
	// alter, when set, is called for every message the client writes and
	// returns what to send instead: the message itself, another one, or nil
	// to hold it back. What is sent is what gets recorded.
	alter func(msg jsonrpc.Message) jsonrpc.Message
}

// tapEntry is one message, its direction and when it passed.
type tapEntry struct {
	sent bool // written by the client (false: read from the server)
	msg  jsonrpc.Message
	at   time.Time
}

func newTap(s jsonrpc.Stream) *tap {
	return &tap{Stream: s, changed: make(chan struct{})}
}

func (t *tap) record(sent bool, msg jsonrpc.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries = append(t.entries, tapEntry{sent: sent, msg: msg, at: time.Now()})
	close(t.changed)
	t.changed = make(chan struct{})
}

// Read records what the server sent.
func (t *tap) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := t.Stream.Read(ctx)
	if err == nil {
		t.record(false, msg)
	}
	return msg, err
}

// Write records and sends what the client sends, as altered.
func (t *tap) Write(ctx context.Context, msg jsonrpc.Message) error {
	t.mu.Lock()
	alter := t.alter
	t.mu.Unlock()
	if alter != nil {
		msg = alter(msg)
		if msg == nil {
			return nil
		}
	}
	t.record(true, msg)
	return t.Stream.Write(ctx, msg)
}

// setAlter installs the hook that alters or holds back what the client sends.
func (t *tap) setAlter(f func(jsonrpc.Message) jsonrpc.Message) {
	t.mu.Lock()
	t.alter = f
	t.mu.Unlock()
}

// messages returns the recorded messages, batches flattened, in order.
func (t *tap) messages() []tapEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []tapEntry
	for _, e := range t.entries {
		if b, ok := e.msg.(jsonrpc.Batch); ok {
			for _, m := range b {
				out = append(out, tapEntry{sent: e.sent, msg: m, at: e.at})
			}
			continue
		}
		out = append(out, e)
	}
	return out
}

// sent returns the requests and notifications the client sent for method.
func (t *tap) sent(method string) []*jsonrpc.Request {
	var out []*jsonrpc.Request
	for _, e := range t.messages() {
		if r, ok := e.msg.(*jsonrpc.Request); ok && e.sent && r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// received returns the requests and notifications the server sent for method.
func (t *tap) received(method string) []*jsonrpc.Request {
	var out []*jsonrpc.Request
	for _, e := range t.messages() {
		if r, ok := e.msg.(*jsonrpc.Request); ok && !e.sent && r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// response returns the response the server sent for id, if any, and its
// position among the recorded messages.
func (t *tap) response(id jsonrpc.ID) (*jsonrpc.Response, int) {
	for i, e := range t.messages() {
		if r, ok := e.msg.(*jsonrpc.Response); ok && !e.sent && r.ID == id {
			return r, i
		}
	}
	return nil, -1
}

// waitFor waits until match holds for a recorded message and returns it.
func (t *tap) waitFor(tb testing.TB, what string, match func(tapEntry) bool) tapEntry {
	tb.Helper()
	deadline := time.After(testTimeout)
	for {
		t.mu.Lock()
		changed := t.changed
		t.mu.Unlock()
		for _, e := range t.messages() {
			if match(e) {
				return e
			}
		}
		select {
		case <-changed:
		case <-deadline:
			tb.Fatalf("timed out waiting for %s on the wire", what)
			return tapEntry{}
		}
	}
}

// sentAt returns when the client sent each request for method, in order.
func (t *tap) sentAt(method string) []time.Time {
	var out []time.Time
	for _, e := range t.messages() {
		if r, ok := e.msg.(*jsonrpc.Request); ok && e.sent && r.Method == method {
			out = append(out, e.at)
		}
	}
	return out
}

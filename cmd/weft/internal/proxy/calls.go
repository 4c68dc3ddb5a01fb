package proxy

import (
	"context"
	"sync"

	"github.com/weftmcp/weft/server"
)

// callTable knows which client request each call to the wrapped server
// serves, so that the wrapped server's questions during the call are asked
// of that client.
//
// A modern wrapped server asks inside the call's own result, and the
// question's context is the call's: the request is found in it. A legacy
// wrapped server asks with a request of its own that names no call; it is
// routed to the one call in flight, and refused when there are several.
type callTable struct {
	mu       sync.Mutex
	inFlight map[*server.Request]int
}

// upstreamKey is the context key of the client request a call serves.
type upstreamKey struct{}

// enter records that req is being served by a call to the wrapped server
// and returns the context for that call; done ends the record.
func (t *callTable) enter(ctx context.Context, req *server.Request) (context.Context, func()) {
	t.mu.Lock()
	if t.inFlight == nil {
		t.inFlight = map[*server.Request]int{}
	}
	t.inFlight[req]++
	t.mu.Unlock()
	return context.WithValue(ctx, upstreamKey{}, req), func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.inFlight[req]--; t.inFlight[req] == 0 {
			delete(t.inFlight, req)
		}
	}
}

// upstream returns the client request a question from the wrapped server
// belongs to, or nil when it cannot be told.
func (t *callTable) upstream(ctx context.Context) *server.Request {
	if req, ok := ctx.Value(upstreamKey{}).(*server.Request); ok {
		return req
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.inFlight) != 1 {
		return nil
	}
	for req := range t.inFlight {
		return req
	}
	return nil
}

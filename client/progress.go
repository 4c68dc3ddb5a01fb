package client

import (
	"sync"

	"github.com/weftmcp/weft/mcp"
)

// ProgressHandler receives the progress notifications of one call, in the
// order the server sent them, all before the call returns its result. It runs
// on the connection's read loop, so it must return quickly.
type ProgressHandler func(params *mcp.ProgressNotificationParams)

// progressTable maps the progress tokens of calls in flight to their handlers.
type progressTable struct {
	mu       sync.Mutex
	last     int64
	handlers map[string]ProgressHandler // by token's JSON text
}

// register allocates a token unique in the session for h and returns it with
// the function that forgets it. A nil h gets the absent token.
func (t *progressTable) register(h ProgressHandler) (token mcp.ProgressToken, forget func()) {
	if h == nil {
		return mcp.ProgressToken{}, func() {}
	}
	t.mu.Lock()
	t.last++
	token = mcp.Int64ProgressToken(t.last)
	t.handlers[token.Raw()] = h
	t.mu.Unlock()
	return token, func() {
		t.mu.Lock()
		delete(t.handlers, token.Raw())
		t.mu.Unlock()
	}
}

// dispatch hands p to the handler of its token; it reports false when no
// call in flight holds the token (it finished, or never asked for progress).
func (t *progressTable) dispatch(p *mcp.ProgressNotificationParams) bool {
	t.mu.Lock()
	h := t.handlers[p.ProgressToken.Raw()]
	t.mu.Unlock()
	if h == nil {
		return false
	}
	h(p)
	return true
}

package server

import (
	"sync"

	"github.com/weftmcp/weft/mcp"
)

// metaMemo remembers what the server decoded from the last few distinct
// raw values of a modern request's _meta field, keyed by their bytes: a
// client sends the same capabilities and client info on every request, so
// each is decoded once instead of per request (11 allocations of a
// modern tools/call, 23 of an extension task life's 170;
// BenchmarkTaskLifeCost). The values are shared
// between requests, as a legacy session's requests share what initialize
// declared. At most metaMemoSize values are kept; a full memo starts
// afresh.
type metaMemo[T any] struct {
	mu     sync.Mutex
	values map[string]T
}

// metaMemoSize is how many distinct raw values a metaMemo keeps.
const metaMemoSize = 64

// decode returns the value of m[key] as decode reads it, from the memo
// when these bytes were decoded before. Errors (absent, null, malformed)
// are decode's, and nothing is kept of them.
func (c *metaMemo[T]) decode(m mcp.Meta, key string, decode func(mcp.Meta) (T, error)) (T, error) {
	raw, ok := m[key]
	if !ok {
		return decode(m)
	}
	c.mu.Lock()
	v, ok := c.values[string(raw)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := decode(m)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.values == nil || len(c.values) >= metaMemoSize {
		c.values = make(map[string]T)
	}
	c.values[string(raw)] = v
	c.mu.Unlock()
	return v, nil
}

package otel

import (
	"github.com/weftmcp/weft/mcp"
)

// metaCarrier reads a trace context out of a _meta object, as the
// propagators' TextMapCarrier.
type metaCarrier mcp.Meta

// Get returns the string value of key, "" when it is absent or not a string.
func (m metaCarrier) Get(key string) string {
	s, _ := mcp.Meta(m).String(key)
	return s
}

// Set does nothing: a metaCarrier is only extracted from (injection
// collects into a propagation.MapCarrier, then sets _meta).
func (m metaCarrier) Set(key, value string) {}

// Keys returns the keys of the _meta object.
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

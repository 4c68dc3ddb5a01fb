package mcp

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
)

// metaValuesSize is room, on the stack, for the values of a modern
// request's usual _meta (version, capabilities, client info: about 200
// bytes) while they are read.
const metaValuesSize = 256

// UnmarshalJSONFrom decodes a _meta object as the json package would into
// a map of raw values (null sets m to nil; into a non-nil m, members are
// added), but with the values sharing one buffer and the reserved
// names not allocated: a modern request's _meta cost 9 of the 51
// allocations of its tools/call the general way (BenchmarkToolsCall).
// Each value's capacity ends where it does, so appending to one never
// writes over the next. Meta has no marshalling methods: a method would
// cost every result with an omitempty _meta an encoding to learn it is
// empty, where the json package tells a nil map at once.
func (m *Meta) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch kind := dec.PeekKind(); kind {
	case 'n':
		_, err := dec.ReadToken()
		*m = nil
		return err
	case '{':
	default:
		return fmt.Errorf("_meta is a JSON %s, want an object", jsonkind.Name(kind))
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	type member struct {
		name       string
		start, end int
	}
	var inline [8]member
	members := inline[:0]
	var room [metaValuesSize]byte
	read := room[:0]
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return err
		}
		key := metaName(name)
		value, err := dec.ReadValue()
		if err != nil {
			return err
		}
		start := len(read)
		read = append(read, value...)
		members = append(members, member{key, start, len(read)})
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	values := bytes.Clone(read) // off the stack, at its size: one allocation
	if *m == nil {
		*m = make(Meta, len(members))
	}
	for _, mb := range members {
		(*m)[mb.name] = stdjson.RawMessage(values[mb.start:mb.end:mb.end])
	}
	return nil
}

// metaName returns the member name whose JSON string (valid, quotes
// included) is quoted; a reserved name without allocating.
func metaName(quoted jsontext.Value) string {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		name, _ := jsontext.AppendUnquote(nil, quoted)
		return string(name)
	}
	switch string(raw) {
	case MetaProtocolVersion:
		return MetaProtocolVersion
	case MetaClientCapabilities:
		return MetaClientCapabilities
	case MetaClientInfo:
		return MetaClientInfo
	case MetaLogLevel:
		return MetaLogLevel
	case MetaProgressToken:
		return MetaProgressToken
	case MetaRelatedTask:
		return MetaRelatedTask
	case MetaTraceParent:
		return MetaTraceParent
	case MetaTraceState:
		return MetaTraceState
	}
	return string(raw)
}

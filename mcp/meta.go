package mcp

import (
	stdjson "encoding/json"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
)

// Reserved _meta keys.
const (
	// MetaProgressToken opts a request into notifications/progress (all versions).
	MetaProgressToken = "progressToken"
	// MetaProtocolVersion is the protocol version of a modern request (required).
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities is a modern request's ClientCapabilities (required).
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaClientInfo is a modern request's client Implementation (should).
	MetaClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaServerInfo is a modern result's server Implementation (should).
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaLogLevel is a modern request's LoggingLevel; without it the server
	// sends no notifications/message for the request.
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaSubscriptionID carries the subscriptions/listen request ID on every
	// notification of that stream and on its closing result.
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaRelatedTask ties a 2025-11-25 message to a task: RelatedTaskMetadata.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
	// MetaModelImmediateResponse is text a host may hand the model while a
	// 2025-11-25 tools/call task runs (in the CreateTaskResult's _meta).
	MetaModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"
	// MetaTraceParent, MetaTraceState and MetaBaggage carry OpenTelemetry
	// trace context in W3C Trace Context and Baggage formats.
	MetaTraceParent = "traceparent"
	MetaTraceState  = "tracestate"
	MetaBaggage     = "baggage"
)

// ErrAbsent is wrapped by the errors of accessors asked for a member that is
// not there, so callers can tell "missing" from "malformed" with errors.Is.
var ErrAbsent = errors.New("not present")

// Meta is a _meta object: member names mapped to their raw JSON values. The
// typed accessors decode the reserved keys; other keys pass through untouched.
type Meta map[string]stdjson.RawMessage

// Has reports whether key is present.
func (m Meta) Has(key string) bool {
	_, ok := m[key]
	return ok
}

// Decode decodes the value at key into v. An absent key gives an error
// wrapping ErrAbsent; a null, or a value that does not fit v, gives an error
// naming the key (no reserved key is nullable).
func (m Meta) Decode(key string, v any) error {
	raw, ok := m[key]
	if !ok {
		return fmt.Errorf("_meta[%q]: %w", key, ErrAbsent)
	}
	if string(raw) == "null" {
		return fmt.Errorf("_meta[%q] is null; it must hold a value", key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("_meta[%q] is malformed: %w", key, err)
	}
	return nil
}

// Set encodes v and stores it at key, allocating the map if needed.
func (m *Meta) Set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("_meta[%q] could not be encoded: %w", key, err)
	}
	if *m == nil {
		*m = make(Meta)
	}
	(*m)[key] = raw
	return nil
}

// String decodes a string-valued key, such as MetaTraceParent.
func (m Meta) String(key string) (string, error) {
	var s string
	err := m.Decode(key, &s)
	return s, err
}

// ProtocolVersion returns the request's protocol version.
func (m Meta) ProtocolVersion() (string, error) { return m.String(MetaProtocolVersion) }

// ClientCapabilities returns the capabilities declared on this request.
func (m Meta) ClientCapabilities() (ClientCapabilities, error) {
	var c ClientCapabilities
	err := m.Decode(MetaClientCapabilities, &c)
	return c, err
}

// ClientInfo returns the client's self-description.
func (m Meta) ClientInfo() (Implementation, error) {
	var i Implementation
	err := m.Decode(MetaClientInfo, &i)
	return i, err
}

// ServerInfo returns the server's self-description on a modern result.
func (m Meta) ServerInfo() (Implementation, error) {
	var i Implementation
	err := m.Decode(MetaServerInfo, &i)
	return i, err
}

// LogLevel returns the minimum level of log messages the request asked for.
// An unknown level name is an error.
func (m Meta) LogLevel() (LoggingLevel, error) {
	var l LoggingLevel
	if err := m.Decode(MetaLogLevel, &l); err != nil {
		return "", err
	}
	if !l.Valid() {
		return "", fmt.Errorf("_meta[%q] is %q, which is not a logging level", MetaLogLevel, l)
	}
	return l, nil
}

// SubscriptionID returns the ID of the subscriptions/listen request a
// notification or closing result belongs to.
func (m Meta) SubscriptionID() (jsonrpc.ID, error) {
	var id jsonrpc.ID
	err := m.Decode(MetaSubscriptionID, &id)
	return id, err
}

// ProgressToken returns the request's progress token.
func (m Meta) ProgressToken() (ProgressToken, error) {
	var t ProgressToken
	err := m.Decode(MetaProgressToken, &t)
	return t, err
}

// RelatedTask returns the 2025-11-25 task a message belongs to.
func (m Meta) RelatedTask() (RelatedTaskMetadata, error) {
	var r RelatedTaskMetadata
	err := m.Decode(MetaRelatedTask, &r)
	return r, err
}

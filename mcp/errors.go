package mcp

import (
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
)

// MCP error codes. From 2026-07-28 on, -32000..-32019 are implementation
// defined and -32020..-32099 are reserved for codes the specification
// allocates. Retired codes are never reused.
const (
	// CodeResourceNotFound is resources/read's "resource not found" in
	// 2025-11-25 and earlier. 2026-07-28 uses -32602 instead (SEP-2164);
	// clients keep accepting both. See ResourceNotFoundCode.
	CodeResourceNotFound int64 = -32002
	// CodeHeaderMismatch reports HTTP headers that are missing, malformed or
	// disagree with the body (2026-07-28; HTTP status 400).
	CodeHeaderMismatch int64 = -32020
	// CodeMissingRequiredClientCapability reports that serving the request
	// needs a client capability the request did not declare (2026-07-28;
	// HTTP status 400). Data: MissingCapabilityData.
	CodeMissingRequiredClientCapability int64 = -32021
	// CodeUnsupportedProtocolVersion reports a protocol version the server does
	// not implement (2026-07-28; HTTP status 400). Data: UnsupportedVersionData.
	CodeUnsupportedProtocolVersion int64 = -32022
	// CodeURLElicitationRequired reports that the request needs URL-mode
	// elicitations first (2025-11-25 only). Data: URLElicitationRequiredData.
	CodeURLElicitationRequired int64 = -32042
)

// UnsupportedVersionData is the data member of an unsupported protocol
// version error: what the server supports and what the client asked for.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// MissingCapabilityData is the data member of a missing required client
// capability error: the capabilities the server needs for the request.
type MissingCapabilityData struct {
	RequiredCapabilities ClientCapabilities `json:"requiredCapabilities"`
}

// URLElicitationRequiredData is the data member of a URL elicitation required
// error: URL-mode elicitations, each with an elicitationId, that must complete
// before the request is retried.
type URLElicitationRequiredData struct {
	Elicitations []ElicitParams `json:"elicitations"`
}

// ResourceNotFoundData is the data member of a resource not found error.
type ResourceNotFoundData struct {
	URI string `json:"uri"`
}

// UnsupportedVersionError returns the -32022 error for a request whose
// protocol version the server does not implement.
func UnsupportedVersionError(requested string, supported []string) *jsonrpc.Error {
	if supported == nil {
		supported = []string{}
	}
	return withData(jsonrpc.NewError(CodeUnsupportedProtocolVersion, "Unsupported protocol version"),
		UnsupportedVersionData{Supported: supported, Requested: requested})
}

// MissingCapabilityError returns the -32021 error for a request that needs the
// required client capabilities but did not declare them.
func MissingCapabilityError(required ClientCapabilities) *jsonrpc.Error {
	return withData(jsonrpc.NewError(CodeMissingRequiredClientCapability, "Missing required client capability"),
		MissingCapabilityData{RequiredCapabilities: required})
}

// HeaderMismatchError returns the -32020 error for an HTTP header whose value
// disagrees with the request body.
func HeaderMismatchError(header, headerValue, bodyValue string) *jsonrpc.Error {
	return jsonrpc.NewError(CodeHeaderMismatch,
		"Header mismatch: %s header value %q does not match body value %q", header, headerValue, bodyValue)
}

// MissingHeaderError returns the -32020 error for a required HTTP header that
// is absent or cannot be decoded; reason says which.
func MissingHeaderError(header, reason string) *jsonrpc.Error {
	return jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch: %s header %s", header, reason)
}

// ResourceNotFoundCode returns the code for "resource not found" at version v:
// -32602 in the modern era, -32002 before it.
func ResourceNotFoundCode(v string) int64 {
	if IsModern(v) {
		return jsonrpc.CodeInvalidParams
	}
	return CodeResourceNotFound
}

// IsResourceNotFound reports whether code means "resource not found" from a
// peer of any version: -32002 (legacy) or -32602 (modern).
func IsResourceNotFound(code int64) bool {
	return code == CodeResourceNotFound || code == jsonrpc.CodeInvalidParams
}

// ResourceNotFoundError returns the "resource not found" error for uri with the
// code version v expects and data {uri}.
func ResourceNotFoundError(v, uri string) *jsonrpc.Error {
	return withData(jsonrpc.NewError(ResourceNotFoundCode(v), "Resource not found"), ResourceNotFoundData{URI: uri})
}

// URLElicitationRequiredError returns the -32042 error (2025-11-25) listing the
// URL-mode elicitations the client must complete before retrying.
func URLElicitationRequiredError(message string, elicitations []ElicitParams) *jsonrpc.Error {
	if elicitations == nil {
		elicitations = []ElicitParams{}
	}
	return withData(jsonrpc.NewError(CodeURLElicitationRequired, "%s", message),
		URLElicitationRequiredData{Elicitations: elicitations})
}

// IsModernErrorCode reports whether code is one the modern era defines
// (-32020, -32021, -32022). A dual-era client that probes a server and gets
// one of these knows the server is modern and must not fall back to the
// initialize handshake.
func IsModernErrorCode(code int64) bool {
	return code == CodeHeaderMismatch || code == CodeMissingRequiredClientCapability ||
		code == CodeUnsupportedProtocolVersion
}

// withData sets e's data member to v encoded with the project's JSON codec.
// The data types above always encode; should a caller's raw JSON inside them
// be invalid, the error keeps its code and message and says so in the message.
func withData(e *jsonrpc.Error, v any) *jsonrpc.Error {
	b, err := json.Marshal(v)
	if err != nil {
		e.Message = fmt.Sprintf("%s (error data could not be encoded: %v)", e.Message, err)
		return e
	}
	e.Data = b
	return e
}

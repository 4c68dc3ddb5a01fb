package streamable

import (
	"net/http"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// CodeSessionNotFound is the JSON-RPC error code of a request naming a legacy
// session that does not exist or has ended (HTTP 404). The client must start
// a new session with initialize.
const CodeSessionNotFound int64 = -32001

// codeTransport is the implementation-defined JSON-RPC error code of a
// transport-level refusal (403, 405, 406, 409, 413, 415, 503), whose HTTP
// status says the same.
const codeTransport int64 = -32000

// writeError answers with an HTTP status and a JSON-RPC error response whose
// id is id (null when id is absent).
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	if !id.IsValid() {
		id = jsonrpc.NullID
	}
	body, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e})
	if err != nil { // only an error with invalid data could fail; send it without
		body, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: e.Code, Message: e.Message}})
	}
	h := w.Header()
	h.Set("Content-Type", mediaJSON)
	h.Del(headerSessionID)
	w.WriteHeader(status)
	w.Write(body)
}

// refuse answers a transport-level refusal: an HTTP status and a JSON-RPC
// error with no id.
func refuse(w http.ResponseWriter, status int, format string, args ...any) {
	writeError(w, status, jsonrpc.ID{}, jsonrpc.NewError(codeTransport, format, args...))
}

// errorStatus is the HTTP status of a modern request answered with a JSON
// body holding error code: 404 for an unknown method, 400 for a request the
// server refused as malformed, 200 (the error is an ordinary result of
// serving the request) otherwise.
func errorStatus(code int64) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams,
		mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

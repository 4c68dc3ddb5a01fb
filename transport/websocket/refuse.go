package websocket

import (
	"net/http"

	"github.com/weftmcp/weft/jsonrpc"
)

// codeTransport is the implementation-defined JSON-RPC error code of a
// refused upgrade, whose HTTP status says the same.
const codeTransport int64 = -32000

// refuse answers an upgrade request with an HTTP status and a JSON-RPC
// error response (id null) saying why.
func refuse(w http.ResponseWriter, status int, format string, args ...any) {
	body, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jsonrpc.NullID, Error: jsonrpc.NewError(codeTransport, format, args...)})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

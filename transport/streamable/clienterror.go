package streamable

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
)

// CodeHTTPError is the code of the JSON-RPC error a Client answers a request
// with when the server refused it with an HTTP error status and no JSON-RPC
// error in the body, or when the HTTP exchange failed after the request was
// sent. It never travels on the wire. Its data is {"httpStatus": N}, with 0
// when no HTTP answer came; HTTPStatus reads it.
const CodeHTTPError int64 = -32010

// HTTPError reports a message the server refused with an HTTP error status.
// Write returns it for notifications and responses.
type HTTPError struct {
	StatusCode int            // the HTTP status code
	Status     string         // the HTTP status line, e.g. "403 Forbidden"
	RPC        *jsonrpc.Error // the JSON-RPC error in the body, if any
	Body       string         // the start of a body that was not a JSON-RPC error
}

// Error describes the refusal.
func (e *HTTPError) Error() string {
	switch {
	case e.RPC != nil:
		return fmt.Sprintf("HTTP %s: %v", e.Status, e.RPC)
	case e.Body != "":
		return fmt.Sprintf("HTTP %s: %s", e.Status, e.Body)
	}
	return "HTTP " + e.Status
}

// Unwrap returns the JSON-RPC error of the body, if any.
func (e *HTTPError) Unwrap() error {
	if e.RPC == nil {
		return nil
	}
	return e.RPC
}

// HTTPStatus returns the HTTP status behind err: that of an *HTTPError, or
// of a CodeHTTPError JSON-RPC error a Client answered a request with.
func HTTPStatus(err error) (int, bool) {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.StatusCode, true
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == CodeHTTPError {
		var d struct {
			HTTPStatus int `json:"httpStatus"`
		}
		if json.Unmarshal(je.Data, &d) == nil && d.HTTPStatus != 0 {
			return d.HTTPStatus, true
		}
	}
	return 0, false
}

// newHTTPError reads the body of an error response: a JSON-RPC error
// response if it is one, its start otherwise. body, when not nil, is the
// already-read body.
func newHTTPError(resp *http.Response, body []byte) *HTTPError {
	if body == nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	}
	e := &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == mediaJSON {
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
				e.RPC = r.Error
				return e
			}
		}
	}
	e.Body = strings.TrimSpace(string(body[:min(len(body), 512)]))
	return e
}

// rpcError returns the JSON-RPC error that answers a request refused with e:
// the server's own, or a CodeHTTPError carrying the status.
func (e *HTTPError) rpcError() *jsonrpc.Error {
	if e.RPC != nil {
		return e.RPC
	}
	return transportError(e.StatusCode, "%s", e.Error())
}

// transportError returns a CodeHTTPError error with the status in its data.
func transportError(status int, format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(CodeHTTPError, format, args...).WithData(map[string]int{"httpStatus": status})
}

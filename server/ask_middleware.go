package server

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"maps"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/mcp"
)

// AskRequest is a request the server is about to send to the client of a legacy
// session while it serves Request (elicitation/create,
// sampling/createMessage, roots/list), as AskMiddleware sees it.
type AskRequest struct {
	// Method is the JSON-RPC method, such as "elicitation/create".
	Method string
	// Params are the params about to be sent, encoded; SetMeta adds to
	// their _meta.
	Params stdjson.RawMessage
	// Request is the request being served that asks.
	Request *Request

	session *Session // the session the request is sent on
}

// SetMeta sets one member of the params' _meta, encoding value as JSON
// (for example the W3C traceparent of a trace context). It fails when
// value does not encode or the params are not a JSON object.
func (a *AskRequest) SetMeta(key string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("server: encoding _meta[%q] of %s: %w", key, a.Method, err)
	}
	params := map[string]jsontext.Value{}
	if len(a.Params) > 0 {
		if err := json.Unmarshal(a.Params, &params); err != nil {
			return fmt.Errorf("server: the params of %s are not a JSON object: %w", a.Method, err)
		}
	}
	var meta mcp.Meta
	if m, ok := params["_meta"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return fmt.Errorf("server: the _meta of %s is not a JSON object: %w", a.Method, err)
		}
	}
	out := make(mcp.Meta, len(meta)+1)
	maps.Copy(out, meta)
	out[key] = raw
	if params["_meta"], err = json.Marshal(out); err != nil {
		return fmt.Errorf("server: encoding the _meta of %s: %w", a.Method, err)
	}
	if a.Params, err = json.Marshal(params, json.Deterministic(true)); err != nil {
		return fmt.Errorf("server: encoding the params of %s: %w", a.Method, err)
	}
	return nil
}

// AskHandler sends one AskRequest and returns the client's answer raw, or the
// error (a *jsonrpc.Error when the client answered with one).
type AskHandler func(ctx context.Context, a *AskRequest) (jsontext.Value, error)

// AskMiddleware wraps the sending of the server's requests to the client,
// as Middleware wraps the handling of the client's: it may look at the
// AskRequest, change ctx or _meta (AskRequest.SetMeta), answer in next's
// place, and look at the answer. See Options.AskMiddleware.
type AskMiddleware func(next AskHandler) AskHandler

// sendAsk is the innermost AskHandler: it sends the request on the
// session's connection.
func sendAsk(ctx context.Context, a *AskRequest) (jsontext.Value, error) {
	var answer jsontext.Value
	err := a.session.conn.Call(ctx, a.Method, a.Params, &answer)
	return answer, err
}

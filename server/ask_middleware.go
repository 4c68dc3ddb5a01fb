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

// AskRequest is a question the server is about to ask its client while it
// serves Request (elicitation/create, sampling/createMessage, roots/list),
// as AskMiddleware sees it. Every question takes this way, whichever way
// it then travels: a server-to-client request on a legacy session's
// connection; an input request of a task (delivered by a 2025-11-25
// tasks/result, or shown by the extension's tasks/get and answered with
// tasks/update); or, in a modern request, an input request of its
// input_required result, answered by the client's retry.
type AskRequest struct {
	// Method is the JSON-RPC method, such as "elicitation/create".
	Method string
	// Params are the params about to be sent, encoded; SetMeta adds to
	// their _meta.
	Params stdjson.RawMessage
	// Key names the question among the request's questions (the key of
	// its input request in the modern era and in tasks).
	Key string
	// Request is the request being served that asks: for a task, the
	// Request its run rebuilt from the call that created it.
	Request *Request

	deliver AskHandler // how the question reaches the client on this path
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

// deliverAsk is the innermost AskHandler: it passes the question on the way
// its asker chose.
func deliverAsk(ctx context.Context, a *AskRequest) (jsontext.Value, error) {
	return a.deliver(ctx, a)
}

// passAsk asks q through Options.AskMiddleware, which deliver, the asker's
// own way to the client, ends; it returns the answer. Without middleware it
// is a call of deliver.
func (r *Request) passAsk(ctx context.Context, q *question, deliver AskHandler) (jsontext.Value, error) {
	a := &AskRequest{Method: q.method, Params: q.input.Params, Key: q.key, Request: r, deliver: deliver}
	if h := r.srv.askChain; h != nil {
		return h(ctx, a)
	}
	return deliver(ctx, a)
}

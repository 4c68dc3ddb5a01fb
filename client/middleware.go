package client

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"maps"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// Request is a message the session is about to send, as middleware sees
// it: a request, or a notification (IsNotification).
type Request struct {
	session *Session
	method  string
	params  any
	notify  bool
	id      jsonrpc.ID
	onID    func(jsonrpc.ID) // the session's own, if it needs the ID
}

// Method returns the JSON-RPC method, such as "tools/call".
func (r *Request) Method() string { return r.method }

// Params returns the params about to be sent: the mcp params type of the
// method (*mcp.CallToolParams for tools/call, …), with the _meta the
// session adds already in it. It must not be modified; SetMeta adds to
// _meta.
func (r *Request) Params() any { return r.params }

// IsNotification reports whether the message is a notification, which
// gets no answer.
func (r *Request) IsNotification() bool { return r.notify }

// ID returns the request's JSON-RPC ID once it has been given one, which
// happens as the request is sent: after next has been called. It is the
// zero ID before, and for a notification.
func (r *Request) ID() jsonrpc.ID { return r.id }

// Session returns the session sending the message.
func (r *Request) Session() *Session { return r.session }

// ProtocolVersion returns the session's protocol version; "" while Connect
// is negotiating it (the initialize and server/discover requests).
func (r *Request) ProtocolVersion() string {
	if st := r.session.settled(); st != nil {
		return st.version
	}
	return ""
}

// ToolName returns the name of the tool a tools/call request calls, "" for
// any other message.
func (r *Request) ToolName() string {
	if p, ok := r.params.(*mcp.CallToolParams); ok {
		return p.Name
	}
	return ""
}

// SetMeta sets one member of the message's params._meta, encoding value as
// JSON (for example the W3C traceparent of a trace context). It copies
// _meta rather than modify the map the caller may share. It fails when
// value does not encode, or the params have no _meta.
func (r *Request) SetMeta(key string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("client: encoding _meta[%q]: %w", key, err)
	}
	var meta *mcp.Meta
	switch p := r.params.(type) {
	case interface{ ParamsBase() *mcp.RequestParams }:
		meta = &p.ParamsBase().Meta
	case interface {
		NotificationBase() *mcp.NotificationParams
	}:
		meta = &p.NotificationBase().Meta
	default:
		return fmt.Errorf("client: the params of %s (%T) have no _meta", r.method, r.params)
	}
	m := make(mcp.Meta, len(*meta)+1)
	maps.Copy(m, *meta)
	m[key] = raw
	*meta = m
	return nil
}

// MethodHandler sends one message: for a request it returns the result
// raw, as the server sent it, or the error (a *jsonrpc.Error when the
// server answered with one); for a notification, nil and whether it was
// written.
type MethodHandler func(ctx context.Context, r *Request) (stdjson.RawMessage, error)

// Middleware wraps the session's MethodHandler, as net/http middleware
// wraps an http.Handler: it may look at the message, change ctx or _meta
// (Request.SetMeta), answer in next's place without sending anything, and
// look at next's result or error. See Options.Middleware.
type Middleware func(next MethodHandler) MethodHandler

// send is the innermost MethodHandler: it writes the message on the
// session's connection.
func send(ctx context.Context, r *Request) (stdjson.RawMessage, error) {
	if r.notify {
		return nil, r.session.conn.Notify(ctx, r.method, r.params)
	}
	var raw stdjson.RawMessage
	err := r.session.conn.Call(ctx, r.method, r.params, &raw, jsonrpc.OnID(func(id jsonrpc.ID) {
		r.id = id
		if r.onID != nil {
			r.onID(id)
		}
	}))
	return raw, err
}

// request sends a request through the middleware, if any, and decodes its
// result into result (a *json.RawMessage takes it raw). onID, when not
// nil, learns the request's ID before it is sent.
func (s *Session) request(ctx context.Context, method string, params, result any, onID func(jsonrpc.ID)) error {
	h := s.client.chain
	if h == nil {
		var opts []jsonrpc.CallOption
		if onID != nil {
			opts = []jsonrpc.CallOption{jsonrpc.OnID(onID)}
		}
		return s.conn.Call(ctx, method, params, result, opts...)
	}
	raw, err := h(ctx, &Request{session: s, method: method, params: params, onID: onID})
	if err != nil {
		return err
	}
	if r, ok := result.(*stdjson.RawMessage); ok {
		*r = raw
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("client: %s: decoding the result into %T: %w", method, result, err)
	}
	return nil
}

// notify sends a notification through the middleware, if any.
func (s *Session) notify(ctx context.Context, method string, params any) error {
	h := s.client.chain
	if h == nil {
		return s.conn.Notify(ctx, method, params)
	}
	_, err := h(ctx, &Request{session: s, method: method, params: params, notify: true})
	return err
}

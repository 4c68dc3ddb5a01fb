package server

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// ServeRequest serves one modern (2026-07-28) request that arrived on its
// own, as over Streamable HTTP: the request's _meta says everything (there is
// no session). Notifications related to the request (progress, log messages,
// and for subscriptions/listen the acknowledgement and the stream of changes)
// go to notify, in order, before the response is returned; notify may be nil
// to drop them. A subscriptions/listen request streams until ctx ends, then
// returns its closing result. A notification (no id) is ignored and answered
// with nil. A handler's panic becomes -32603 for this request only. When
// info.Exchange refuses a handler's error (see transport.Exchange), the
// response returned is not to be sent.
//
// It is the method of streamable.Server that serves modern requests, so a
// *Server is what streamable.NewHandler takes.
func (s *Server) ServeRequest(ctx context.Context, req *jsonrpc.Request, info transport.RequestInfo,
	notify func(context.Context, *jsonrpc.Request) error) (resp *jsonrpc.Response) {
	if req.IsNotification() {
		s.serveNotification(ctx, req, info)
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("server: request handler panicked", "method", req.Method, "id", req.ID,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp = &jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError,
				"internal error: the handler of %s panicked", req.Method)}
		}
	}()
	res, err := s.serveModern(ctx, req, info, notify)
	if err != nil {
		return &jsonrpc.Response{ID: req.ID, Error: errorObject(err)}
	}
	if enc, ok := s.encodeTaskResult(res); ok {
		return &jsonrpc.Response{ID: req.ID, Result: enc.Text()}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		s.logger.Error("server: cannot encode a result", "method", req.Method, "id", req.ID, "error", err)
		return &jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError,
			"internal error: the result of %s cannot be encoded: %v", req.Method, err)}
	}
	return &jsonrpc.Response{ID: req.ID, Result: raw}
}

// serveModern decodes and serves a standalone modern request.
func (s *Server) serveModern(ctx context.Context, req *jsonrpc.Request, info transport.RequestInfo,
	notify func(context.Context, *jsonrpc.Request) error) (result, error) {
	rt, p, err := s.decodeRequest(req)
	if err != nil {
		return nil, err
	}
	r := &Request{srv: s, id: req.ID, method: req.Method, params: req.Params, meta: p.ParamsBase().Meta}
	if err := r.setModern(info.Principal, info.Version); err != nil {
		return nil, err
	}
	r.exchange = info.Exchange
	if err := r.readProgressToken(); err != nil {
		return nil, err
	}
	r.send = func(ctx context.Context, msg *jsonrpc.Request) error {
		if notify == nil {
			return nil
		}
		return notify(ctx, msg)
	}
	return s.run(ctx, r, rt, p)
}

// errorObject converts a handler's error into the error object to send, as
// a jsonrpc.Conn does: a *jsonrpc.Error as is, anything else as -32603.
func errorObject(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", err.Error())
}

// isModernRequest reports whether _meta marks a modern request: it carries
// either of the per-request protocol fields (a request carrying one but not
// the other is a malformed modern request, not a legacy one).
func isModernRequest(m mcp.Meta) bool {
	return m.Has(mcp.MetaProtocolVersion) || m.Has(mcp.MetaClientCapabilities)
}

// setModern sets up r as a modern request of principal from its _meta: the
// protocol version (which must be one the server speaks: else -32022, and
// the one the transport read outside the body, if any: else -32020), the
// client's capabilities (required) and info (optional), and the log level
// (optional). A missing or malformed field is -32602 naming it.
func (r *Request) setModern(principal, transportVersion string) error {
	m := r.meta
	v, err := metaVersion(m)
	if err != nil {
		return metaError(err, mcp.MetaProtocolVersion, "its protocol version")
	}
	if !mcp.IsModern(v) || !mcp.IsSupported(v) {
		return mcp.UnsupportedVersionError(v, modernVersions())
	}
	if transportVersion != "" && transportVersion != v {
		return mcp.HeaderMismatchError("MCP-Protocol-Version", transportVersion, v)
	}
	caps, err := r.srv.clientCaps.decode(m, mcp.MetaClientCapabilities, mcp.Meta.ClientCapabilities)
	if err != nil {
		return metaError(err, mcp.MetaClientCapabilities, "its client capabilities ({} for none)")
	}
	if m.Has(mcp.MetaClientInfo) {
		if r.client, err = r.srv.clientInfo.decode(m, mcp.MetaClientInfo, mcp.Meta.ClientInfo); err != nil {
			return invalidParams("%v", err)
		}
	}
	if m.Has(mcp.MetaLogLevel) {
		if r.logLevel, err = m.LogLevel(); err != nil {
			return invalidParams("%v", err)
		}
	}
	r.modern, r.version, r.caps, r.principal = true, v, caps, principal
	r.asker = noAsker{}
	return nil
}

// metaVersion returns the protocol version m names: a supported one as
// the package's own string, with no decoding (two of a modern request's
// allocations, BenchmarkToolsCall), any other as Meta.ProtocolVersion
// decodes it.
func metaVersion(m mcp.Meta) (string, error) {
	if raw := m[mcp.MetaProtocolVersion]; len(raw) > 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		for _, v := range mcp.SupportedVersions() {
			if string(raw[1:len(raw)-1]) == v {
				return v, nil
			}
		}
	}
	return m.ProtocolVersion()
}

// metaError is the -32602 error for a required _meta field that is missing or
// malformed.
func metaError(err error, key, what string) error {
	if errors.Is(err, mcp.ErrAbsent) {
		return invalidParams("params._meta[%q] is missing: a %s request must carry %s there", key, mcp.Version20260728, what)
	}
	return invalidParams("%v", err)
}

// readProgressToken takes the progress token from _meta, if any.
func (r *Request) readProgressToken() error {
	if !r.meta.Has(mcp.MetaProgressToken) {
		return nil
	}
	t, err := r.meta.ProgressToken()
	if err != nil {
		return invalidParams("%v", err)
	}
	r.progress = t
	return nil
}

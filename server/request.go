package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

// Request is what a handler knows about the request it serves, and its way
// back to the client: progress, log messages, and questions (elicitation,
// sampling, roots). It is valid for the duration of the handler call.
//
// In the legacy era (2024-11-05 … 2025-11-25) the protocol version, client
// capabilities and client info come from the session's initialize handshake;
// in the modern era (2026-07-28) from the request's own _meta.
type Request struct {
	srv       *Server
	session   *Session // the legacy session; nil in the modern era
	via       *Session // the connection the request arrived on, in either era; nil for ServeRequest
	id        jsonrpc.ID
	method    string
	params    stdjson.RawMessage
	meta      mcp.Meta
	version   string
	caps      mcp.ClientCapabilities
	client    mcp.Implementation
	principal string
	progress  mcp.ProgressToken
	logLevel  mcp.LoggingLevel // modern: the request's _meta logLevel ("" = no log messages)
	send      func(context.Context, *jsonrpc.Request) error
	asker     asker
	exchange  transport.Exchange // the HTTP exchange carrying the request, if any
	round     *round             // modern tools/call, prompts/get, resources/read: the multi round-trip state
	decoded   paramsBase         // the params, decoded; nil for a notification
	askMu     sync.Mutex
	askSeq    int // questions asked so far, for default keys; guarded by askMu

	mu           sync.Mutex // serialises related notifications with the end of the request
	finished     bool
	refused      bool // exchange refused the handler's error: no response is sent
	sentProgress bool
	// The bools share one word, which keeps a Request in the 448-byte size
	// class (BenchmarkToolsCall B/op); taskDone, promoting and mayPromote
	// belong to the task below.
	taskDone     bool // the task's run has ended: no more status or notifications
	promoting    bool // a task is being created for the running handler
	mayPromote   bool // the handler runs under a promotion: keep its last progress
	modern       bool // the request is served in the modern era; set before it is served
	lastProgress float64

	// The task the request runs in, once it does (see task_request.go);
	// guarded by mu.
	task    *tasks.Exec
	taskCtx context.Context // ends when the task is cancelled, expires or is lost here
	related *relatedTask    // the task the request is about, or is to create (see request_task.go)
}

// Method returns the JSON-RPC method, such as "tools/call".
func (r *Request) Method() string { return r.method }

// ID returns the JSON-RPC id of the request.
func (r *Request) ID() jsonrpc.ID { return r.id }

// Params returns the raw params of the request, as received.
func (r *Request) Params() stdjson.RawMessage { return r.params }

// Meta returns the request's _meta object (nil when absent). It must not be
// modified.
func (r *Request) Meta() mcp.Meta { return r.meta }

// ProtocolVersion returns the protocol version the request is served under:
// the session's negotiated version (legacy) or the request's own (modern).
func (r *Request) ProtocolVersion() string { return r.version }

// IsModern reports whether the request is served under the modern era
// (stateless, per-request _meta, multi round-trip input).
func (r *Request) IsModern() bool { return r.modern }

// ClientCapabilities returns the capabilities the client declared: in
// initialize (legacy) or in this request's _meta (modern). Their maps are
// shared with the client's other requests: read them, do not change them.
func (r *Request) ClientCapabilities() mcp.ClientCapabilities { return r.caps }

// ClientInfo returns the client's self-description, which is unverified and
// may be empty in the modern era.
func (r *Request) ClientInfo() mcp.Implementation { return r.client }

// Principal returns who the request is from, for authorization and for
// binding state to its owner: the identity the transport authenticated, or
// else the legacy session's ID; empty for an unauthenticated modern request.
func (r *Request) Principal() string { return r.principal }

// Session returns the legacy session the request arrived on, or nil in the
// modern era (which has no sessions).
func (r *Request) Session() *Session { return r.session }

// CloseSSEStream ends the HTTP response carrying this request's SSE stream
// without ending the stream, as a server polling its clients does (SEP-1699):
// the client reconnects with GET and Last-Event-ID, and what the handler
// sends from now on, its result included, reaches it there. It reports
// whether there was such a response to end, which only a request of a
// legacy Streamable HTTP session (2025-11-25) has, while its response is
// an SSE stream the client is connected to (the transport switches an
// undecided response to SSE for this), of a method other than tools/call
// and ping, or of a tool added with ClosesSSEStream: the other calls of a
// legacy session run on the goroutine of the POST that carried them, whose
// response cannot end while they run.
func (r *Request) CloseSSEStream() bool {
	return r.exchange != nil && r.exchange.CloseStream()
}

// refuse offers a handler's error to the exchange carrying the request,
// which may answer it with a refusal of its own (an HTTP 403 for a missing
// OAuth scope); it reports whether the request was refused so, now or
// before. A JSON-RPC error object is the handler's answer, and
// ErrInputRequired a question for the client: neither is offered.
func (r *Request) refuse(err error) bool {
	if err == nil || r.exchange == nil {
		return false // before je, which escapes: an allocation per request otherwise
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) || errors.Is(err, ErrInputRequired) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.refused && !r.finished {
		r.refused = r.exchange.Refuse(err)
	}
	return r.refused
}

// notifyLocked sends a notification related to this request, unless the
// request has been answered; the caller holds r.mu.
func (r *Request) notifyLocked(ctx context.Context, method string, params any) error {
	if r.finished {
		return ErrRequestDone
	}
	msg, err := notification(method, params)
	if err != nil {
		return err
	}
	return r.send(ctx, msg)
}

// finish marks the request answered: from now on Progress and Log refuse to
// send, so nothing related to it follows its response. It waits for a
// notification being sent to complete.
func (r *Request) finish() {
	r.mu.Lock()
	r.finished = true
	r.mu.Unlock()
}

package client

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// refusal is why the client will not serve a request for input: no handler
// for it, a mode or feature it did not declare, or malformed params. code is
// the JSON-RPC error a legacy server request gets for it.
type refusal struct {
	code      int64
	msg       string
	noHandler bool // the refusal wraps ErrNoHandler
}

// Error implements error.
func (r *refusal) Error() string { return r.msg }

// Unwrap returns ErrNoHandler for a missing handler, and nil otherwise.
func (r *refusal) Unwrap() error {
	if r.noHandler {
		return ErrNoHandler
	}
	return nil
}

// noHandler refuses a kind of request the client has no handler for.
func noHandler(code int64, format string, args ...any) *refusal {
	return &refusal{code: code, msg: fmt.Sprintf(format, args...), noHandler: true}
}

// serveInput runs the handler for one request for input, whether it came as
// a legacy server-to-client request, inside a modern input_required result
// or as a client-hosted task, and returns its result.
func (c *Client) serveInput(ctx context.Context, method string, params []byte) (any, error) {
	run, err := c.prepareInput(method, params)
	if err != nil {
		return nil, err
	}
	return run(ctx)
}

// inputRun runs a checked request for input and returns its result.
type inputRun func(ctx context.Context) (any, error)

// prepareInput decodes and checks one request for input and returns what
// runs its handler; a request the client will not serve (no handler, a
// mode or feature it did not declare, malformed params) is a *refusal.
func (c *Client) prepareInput(method string, params []byte) (inputRun, error) {
	o := &c.opts
	switch method {
	case mcp.MethodSamplingCreateMessage:
		if o.CreateMessage == nil {
			return nil, noHandler(jsonrpc.CodeMethodNotFound,
				"sampling is not supported by this client: set Options.CreateMessage to serve %s", method)
		}
		var p mcp.CreateMessageParams
		if err := decodeParams(method, params, &p); err != nil {
			return nil, err
		}
		if (len(p.Tools) > 0 || p.ToolChoice != nil) && !o.SamplingTools {
			return nil, noHandler(jsonrpc.CodeInvalidParams,
				"the sampling request offers tools, but this client did not declare sampling.tools: set Options.SamplingTools to accept them")
		}
		return func(ctx context.Context) (any, error) { return nonNil(o.CreateMessage(ctx, &p)) }, nil
	case mcp.MethodElicitationCreate:
		if o.ElicitForm == nil && o.ElicitURL == nil {
			return nil, noHandler(jsonrpc.CodeMethodNotFound,
				"elicitation is not supported by this client: set Options.ElicitForm or Options.ElicitURL to serve %s", method)
		}
		var p mcp.ElicitParams
		if err := decodeParams(method, params, &p); err != nil {
			return nil, err
		}
		h := o.ElicitForm
		if p.EffectiveMode() == mcp.ElicitModeURL {
			h = o.ElicitURL
		}
		if h == nil {
			return nil, noHandler(jsonrpc.CodeInvalidParams,
				"%s-mode elicitation is not supported by this client: set Options.Elicit%s to serve it",
				p.EffectiveMode(), modeField(p.EffectiveMode()))
		}
		return func(ctx context.Context) (any, error) {
			res, err := h(ctx, &p)
			if err != nil || res == nil {
				return nonNil(res, err)
			}
			return withDefaults(&p, res), nil
		}, nil
	case mcp.MethodRootsList:
		if o.ListRoots == nil {
			return nil, noHandler(jsonrpc.CodeMethodNotFound,
				"roots are not supported by this client: set Options.ListRoots to serve %s", method)
		}
		return func(ctx context.Context) (any, error) { return nonNil(o.ListRoots(ctx)) }, nil
	}
	return nil, noHandler(jsonrpc.CodeMethodNotFound, "%q is not a request an MCP client serves", method)
}

// modeField names the Options field of an elicitation mode.
func modeField(m mcp.ElicitMode) string {
	if m == mcp.ElicitModeURL {
		return "URL"
	}
	return "Form"
}

// decodeParams decodes a request's params; malformed params are refused
// with -32602.
func decodeParams(method string, params []byte, v any) error {
	if len(params) == 0 {
		return &refusal{code: jsonrpc.CodeInvalidParams, msg: fmt.Sprintf("%s needs params, and the request has none", method)}
	}
	if err := json.Unmarshal(params, v); err != nil {
		return &refusal{code: jsonrpc.CodeInvalidParams, msg: fmt.Sprintf("the params of %s are malformed: %v", method, err)}
	}
	return nil
}

// nonNil turns a handler's nil result without an error into an error, so
// the server never gets a null result.
func nonNil[R any](r *R, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("the client's handler returned neither a result nor an error")
	}
	return r, nil
}

// answerInputs answers every input request of an input_required result, one
// at a time in key order, and returns the responses under the same keys.
func (s *Session) answerInputs(ctx context.Context, reqs mcp.InputRequests) (mcp.InputResponses, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	out := make(mcp.InputResponses, len(reqs))
	for _, key := range slices.Sorted(maps.Keys(reqs)) {
		req := reqs[key]
		res, err := s.client.serveInput(ctx, req.Method, req.Params)
		if err != nil {
			return nil, &InputError{Key: key, Method: req.Method, Err: err}
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return nil, &InputError{Key: key, Method: req.Method, Err: fmt.Errorf("encoding the handler's result: %w", err)}
		}
		out[key] = raw
	}
	return out, nil
}

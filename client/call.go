package client

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// CallOption configures one call.
type CallOption func(*callConfig)

// callConfig is what the CallOptions of one call chose.
type callConfig struct {
	progress ProgressHandler
	logLevel *mcp.LoggingLevel
	taskWait bool          // WithTask: CallTool may run the call as a task
	taskTTL  time.Duration // WithTaskTTL: the retention asked of a 2025-11-25 task

	// Set by the session itself, not by callers.
	onID         func(jsonrpc.ID) // learns the request's ID before it is sent
	declareTasks bool             // a modern request declares the tasks extension
}

// withID has the call report its request's ID before the request is sent.
func withID(f func(jsonrpc.ID)) CallOption {
	return func(c *callConfig) { c.onID = f }
}

// declareTasks makes a modern request declare the tasks extension in its
// _meta client capabilities, as every tasks/* request and every call that
// accepts a task must.
func declareTasks(c *callConfig) { c.declareTasks = true }

// WithProgress asks the server for progress notifications on this call: the
// request carries a fresh progress token, and h receives every notification
// for it, in order, before the call returns.
func WithProgress(h ProgressHandler) CallOption {
	return func(c *callConfig) { c.progress = h }
}

// WithLogLevel sets the minimum level of the log messages a modern server
// sends for this call (_meta logLevel), overriding the session's level; an
// empty level asks for none. Legacy sessions ignore it: their level is
// session-wide, set with Session.SetLoggingLevel.
func WithLogLevel(level mcp.LoggingLevel) CallOption {
	return func(c *callConfig) { c.logLevel = &level }
}

// paramsPtr is a pointer to a request's params struct.
type paramsPtr[P any] interface {
	*P
	ParamsBase() *mcp.RequestParams
}

// retryablePtr is a pointer to the params of a request a modern server may
// answer with input_required (tools/call, prompts/get, resources/read).
type retryablePtr[P any] interface {
	paramsPtr[P]
	InputResponseBase() *mcp.InputResponseParams
}

// prepared is a call's copy of its params, with _meta filled in, what its
// options chose, and the cleanup to run when the call ends.
type prepared[P any] struct {
	params P
	cfg    callConfig
	done   func()
}

// prepare copies params (nil means the zero params) so the caller's value is
// never modified, and fills in the _meta the session and opts call for.
func prepare[P any, PP paramsPtr[P]](s *Session, params PP, opts []CallOption) *prepared[P] {
	pr := &prepared[P]{}
	for _, o := range opts {
		o(&pr.cfg)
	}
	cfg := &pr.cfg
	if params != nil {
		pr.params = *params
	}
	token, forget := s.progress.register(cfg.progress)
	pr.done = forget
	level := cfg.logLevel
	if level == nil {
		level = s.logLevel.Load()
	}
	var lvl mcp.LoggingLevel
	if level != nil {
		lvl = *level
	}
	base := PP(&pr.params).ParamsBase()
	base.Meta = requestMeta(base.Meta, s.settled(), cfg.declareTasks, lvl, token)
	return pr
}

// resultPtr is a pointer to a result struct (they all embed mcp.Result).
type resultPtr[R any] interface {
	*R
	ResultBase() *mcp.Result
}

// call sends a request that has a single, complete answer and decodes it
// into res.
func call[P any, R any, PP paramsPtr[P], RP resultPtr[R]](ctx context.Context, s *Session, method string, params PP, res RP, opts []CallOption) error {
	pr := prepare[P, PP](s, params, opts)
	defer pr.done()
	var raw stdjson.RawMessage
	if err := s.request(ctx, method, PP(&pr.params), &raw, pr.cfg.onID); err != nil {
		return err
	}
	kind, err := decodeResult(method, raw, res)
	if err != nil {
		return err
	}
	if kind == mcp.ResultInputRequired {
		return fmt.Errorf("client: the server answered %s with an input_required result, which only %s, %s and %s may have",
			method, mcp.MethodToolsCall, mcp.MethodPromptsGet, mcp.MethodResourcesRead)
	}
	return nil
}

// callWithInput sends a request a modern server may answer with
// input_required and decodes the final result into res (see exchange).
func callWithInput[P any, R any, PP retryablePtr[P], RP resultPtr[R]](ctx context.Context, s *Session, method string, params PP, res RP, opts []CallOption) error {
	pr := prepare[P, PP](s, params, opts)
	defer pr.done()
	raw, _, err := exchange[P, PP](ctx, s, method, pr, false)
	if err != nil {
		return err
	}
	_, err = decodeResult(method, raw, res)
	return err
}

// exchange sends a prepared request a modern server may answer with
// input_required: it answers the server's input requests with the
// configured handlers and retries with a new request (inputResponses and
// the echoed requestState) until the answer is final, at most
// Options.MaxInputRounds times. It returns the final answer raw, with its
// kind: ResultComplete, or ResultTask when acceptTask allows the server to
// answer with a task.
func exchange[P any, PP retryablePtr[P]](ctx context.Context, s *Session, method string, pr *prepared[P], acceptTask bool) (stdjson.RawMessage, mcp.ResultType, error) {
	for round := 0; ; round++ {
		var raw stdjson.RawMessage
		if err := s.request(ctx, method, PP(&pr.params), &raw, pr.cfg.onID); err != nil {
			return nil, "", err
		}
		kind, err := s.answerKind(method, raw, acceptTask)
		if err != nil || kind != mcp.ResultInputRequired {
			return raw, kind, err
		}
		if round >= s.opts.MaxInputRounds {
			return nil, "", fmt.Errorf("client: %s: %w: %d input_required results answered, the limit of Options.MaxInputRounds",
				method, ErrTooManyInputRounds, round)
		}
		var ir mcp.InputRequiredResult
		if err := json.Unmarshal(raw, &ir); err != nil {
			return nil, "", fmt.Errorf("client: %s: the server's input_required result is malformed: %w", method, err)
		}
		if len(ir.InputRequests) == 0 && ir.RequestState == "" {
			return nil, "", fmt.Errorf("client: %s: the server's input_required result has neither inputRequests nor requestState, so there is nothing to retry with", method)
		}
		responses, err := s.answerInputs(ctx, ir.InputRequests)
		if err != nil {
			return nil, "", fmt.Errorf("client: %s: %w", method, err)
		}
		retry := PP(&pr.params).InputResponseBase()
		retry.InputResponses = responses
		retry.RequestState = ir.RequestState
	}
}

// answerKind reads what kind of answer a raw result is. A modern result
// says so in resultType (absent means complete, as from a legacy peer); a
// 2025-11-25 result has no discriminator, and is a task exactly when the
// request asked for one (acceptTask) and the result holds a "task" member.
// A task the call did not accept, or a resultType the client does not
// know, is an invalid answer.
func (s *Session) answerKind(method string, raw []byte, acceptTask bool) (mcp.ResultType, error) {
	if !s.modern() {
		if !acceptTask {
			return mcp.ResultComplete, nil
		}
		kind, err := mcp.ResultTypeOf(raw)
		if err != nil {
			return "", fmt.Errorf("client: %s: the server's result is malformed: %w", method, err)
		}
		return kind, nil
	}
	var head struct {
		ResultType mcp.ResultType `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return "", fmt.Errorf("client: %s: the server's result is malformed: %w", method, err)
	}
	switch kind := head.ResultType; {
	case kind.IsComplete():
		return mcp.ResultComplete, nil
	case kind == mcp.ResultInputRequired, kind == mcp.ResultTask && acceptTask:
		return kind, nil
	case kind == mcp.ResultTask:
		return "", fmt.Errorf("client: %s: the server answered with resultType \"task\", but this call did not declare the %s extension, so the answer is invalid", method, mcp.ExtensionTasks)
	default:
		return "", fmt.Errorf("client: %s: the server's result has resultType %q, which this client does not understand (it declared no extension that defines it)", method, kind)
	}
}

// decodeResult decodes a result into res, replacing what it held, and
// returns its kind: ResultComplete (resultType "complete", or absent as from
// a legacy server) or ResultInputRequired. Any other resultType is an
// error, as the protocol requires of a type the client did not opt into.
func decodeResult[R any, RP resultPtr[R]](method string, raw []byte, res RP) (mcp.ResultType, error) {
	var zero R
	*res = zero // decoding merges into what is there
	if err := json.Unmarshal(raw, res); err != nil {
		return "", fmt.Errorf("client: %s: the server's result is malformed: %w", method, err)
	}
	switch kind := res.ResultBase().ResultType; {
	case kind.IsComplete():
		return mcp.ResultComplete, nil
	case kind == mcp.ResultInputRequired:
		return kind, nil
	default:
		return "", fmt.Errorf("client: %s: the server's result has resultType %q, which this client does not understand (it declared no extension that defines it)", method, kind)
	}
}

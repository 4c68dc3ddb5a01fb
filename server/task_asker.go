package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// taskAsker asks the client of a tool that runs as a task. Each question
// becomes an input request of the task (Exec.Ask), keyed uniquely for the
// task's life: the extension shows it in tasks/get and takes the answer in
// tasks/update; a legacy session's tasks/result delivers it as a
// server-to-client request tagged with the task. The questions of one
// AskAll are outstanding together. Questions the client answered in multi
// round-trip rounds before the task existed are answered from those
// answers, on every run of the task.
type taskAsker struct {
	x       *tasks.Exec
	answers map[string]recordedAnswer
}

func (a *taskAsker) ask(ctx context.Context, r *Request, qs []*question) error {
	for _, q := range qs {
		if err := checkTaskQuestion(r, q); err != nil {
			return err
		}
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, q := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answer, err := r.passAsk(actx, q, a.inputFor(q))
			var refusal *jsonrpc.Error
			if errors.As(err, &refusal) {
				err = fmt.Errorf("server: the client answered %s with error %d: %s", q.method, refusal.Code, refusal.Message)
			}
			if err != nil {
				cancel(err) // the first failure ends the other questions' wait
				return
			}
			q.answer = answer
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return context.Cause(actx) // nil when every question was answered
}

// inputFor returns how q reaches the client of the task: from the answers
// multi round-trip rounds gathered before the task existed, or else as an
// input request of the task, which blocks until it is answered. A client's
// refusal is its *jsonrpc.Error, as over a legacy connection.
func (a *taskAsker) inputFor(q *question) AskHandler {
	return func(ctx context.Context, ask *AskRequest) (jsontext.Value, error) {
		if ans, ok := a.answers[q.key]; ok && (ans.Method == "" || ans.Method == q.method) {
			return ans.Result, nil
		}
		req, err := json.Marshal(mcp.InputRequest{Method: ask.Method, Params: ask.Params})
		if err != nil {
			return nil, fmt.Errorf("server: encoding the %s input request: %w", q.method, err)
		}
		raw, err := a.x.Ask(ctx, req)
		if err != nil {
			return nil, err
		}
		if refusal, ok := clientRefusal(raw); ok {
			return nil, refusal
		}
		return jsontext.Value(raw), nil
	}
}

// checkTaskQuestion refuses a question the task's client cannot answer:
// one needing a capability the call did not declare (modern: -32021, as
// the extension forbids input requests of undeclared kinds) or, in a
// legacy version, a method that version lacks.
func checkTaskQuestion(r *Request, q *question) error {
	if r.modern {
		if !r.caps.Covers(q.required) {
			return mcp.MissingCapabilityError(q.required)
		}
		return nil
	}
	if q.method == mcp.MethodElicitationCreate && !mcp.SupportsElicitation(r.version) {
		return fmt.Errorf("server: elicitation does not exist in protocol version %s (it arrived in %s)", r.version, mcp.Version20250618)
	}
	if !r.caps.Covers(q.required) {
		return fmt.Errorf("server: %s needs the client capability %s, which the client did not declare in initialize",
			q.method, capabilityText(q.required))
	}
	return nil
}

// A legacy client may answer an input request delivered by tasks/result
// with a JSON-RPC error instead of a result. The refusal is recorded as the
// request's answer in the form {"error": {code, message, data?}}, which no
// elicitation, sampling or roots result has, and the question fails with
// it.

// refusalAnswer records a client's JSON-RPC error as an answer.
func refusalAnswer(e *jsonrpc.Error) (jsontext.Value, error) {
	return json.Marshal(struct {
		Error *jsonrpc.Error `json:"error"`
	}{e})
}

// clientRefusal reports whether an answer records a client's refusal, and
// returns its error.
func clientRefusal(raw []byte) (*jsonrpc.Error, bool) {
	var obj map[string]jsontext.Value
	if json.Unmarshal(raw, &obj) != nil || len(obj) != 1 {
		return nil, false
	}
	v, ok := obj["error"]
	if !ok {
		return nil, false
	}
	var e jsonrpc.Error
	if json.Unmarshal(v, &e) != nil || e.Code == 0 {
		return nil, false
	}
	return &e, true
}

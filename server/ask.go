package server

import (
	"context"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// asker is how a handler's questions reach the client. Each era (and, later,
// tasks) has its own: legacy sends each question as a server-to-client
// request on the connection; modern records them for an InputRequiredResult
// and answers them from the client's retry. ask fills in the answer of every
// question or fails; the questions are already checked and keyed.
type asker interface {
	ask(ctx context.Context, r *Request, qs []*question) error
}

// question is one server-to-client request: its key (unique within the
// request), method and encoded input request, and the raw answer once known.
type question struct {
	key      string
	method   string
	params   any // nil for roots/list
	input    mcp.InputRequest
	required mcp.ClientCapabilities // what the client must have declared to answer
	answer   jsontext.Value
}

// Question is a question for the client that Request.AskAll asks together
// with others: made by AskElicit, AskSample or AskRoots.
type Question interface {
	base() *question
	decode() error
}

// Ask is a question whose answer is an R. After a successful Request.AskAll,
// Result holds the client's answer.
type Ask[R any] struct {
	q question
	// Result is the answer, set by AskAll.
	Result *R
}

func (a *Ask[R]) base() *question { return &a.q }

// decode stores the raw answer in Result.
func (a *Ask[R]) decode() error {
	var v R
	if err := json.Unmarshal(a.q.answer, &v); err != nil {
		return fmt.Errorf("the answer to %s (key %q) is not a valid result: %w", a.q.method, a.q.key, err)
	}
	a.Result = &v
	return nil
}

// AskElicit returns a question that asks the user for input
// (elicitation/create). key names it in a modern InputRequiredResult; empty
// means a key derived from the order of questions, which is stable as long
// as the handler asks the same questions in the same order every round.
func AskElicit(key string, p *mcp.ElicitParams) *Ask[mcp.ElicitResult] {
	return &Ask[mcp.ElicitResult]{q: question{key: key, method: mcp.MethodElicitationCreate, params: p}}
}

// AskSample returns a question that asks the client's model for a message
// (sampling/createMessage). key is as for AskElicit.
func AskSample(key string, p *mcp.CreateMessageParams) *Ask[mcp.CreateMessageResult] {
	return &Ask[mcp.CreateMessageResult]{q: question{key: key, method: mcp.MethodSamplingCreateMessage, params: p}}
}

// AskRoots returns a question that asks the client for its roots
// (roots/list). key is as for AskElicit.
func AskRoots(key string) *Ask[mcp.ListRootsResult] {
	return &Ask[mcp.ListRootsResult]{q: question{key: key, method: mcp.MethodRootsList}}
}

// AskAll asks the client every question at once and fills in their Result
// fields. In the legacy era each becomes a server-to-client request on the
// connection, in order. In a modern tools/call, prompts/get or resources/read
// they all go into one InputRequiredResult: until the client's retry carries
// the answers, AskAll returns an error wrapping ErrInputRequired, which the
// handler must return. A question needs the client to have declared the
// matching capability (elicitation, sampling, roots): otherwise the modern era
// fails with -32021 (a *jsonrpc.Error to return as is) and the legacy era with
// an error saying what is missing.
func (r *Request) AskAll(ctx context.Context, qs ...Question) error {
	if len(qs) == 0 {
		return nil
	}
	batch := make([]*question, len(qs))
	keys := make(map[string]bool, len(qs))
	r.askMu.Lock()
	for i, q := range qs {
		b := q.base()
		if err := r.prepare(b); err != nil {
			r.askMu.Unlock()
			return err
		}
		if keys[b.key] {
			r.askMu.Unlock()
			return fmt.Errorf("server: two questions in one AskAll share the key %q; keys must be unique", b.key)
		}
		keys[b.key] = true
		batch[i] = b
	}
	r.askMu.Unlock()
	if err := r.asker.ask(ctx, r, batch); err != nil {
		return err
	}
	for _, q := range qs {
		if err := q.decode(); err != nil {
			if r.modern {
				return invalidParams("inputResponses: %v", err)
			}
			return fmt.Errorf("server: the client answered badly: %w", err)
		}
	}
	return nil
}

// prepare encodes a question, derives its key if it has none, and works out
// the capability it needs; r.askMu is held.
func (r *Request) prepare(q *question) error {
	r.askSeq++
	if q.key == "" {
		q.key = defaultKey(q.method, r.askSeq)
	}
	in, err := mcp.NewInputRequest(q.method, q.params)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if q.method != mcp.MethodRootsList && string(in.Params) == "null" {
		return fmt.Errorf("server: question %q (%s) has nil params", q.key, q.method)
	}
	required, err := in.RequiredCapabilities()
	if err != nil {
		return fmt.Errorf("server: question %q: %w", q.key, err)
	}
	if required.Sampling != nil && !mcp.SupportsSamplingContext(r.version) {
		required.Sampling.Context = nil // sampling alone covered includeContext then
	}
	q.input, q.required = in, required
	return nil
}

// defaultKey names the n-th question of a request when the handler gave it
// no key, e.g. "elicitation-1".
func defaultKey(method string, n int) string {
	prefix := "roots"
	switch method {
	case mcp.MethodElicitationCreate:
		prefix = "elicitation"
	case mcp.MethodSamplingCreateMessage:
		prefix = "sampling"
	}
	return prefix + "-" + strconv.Itoa(n)
}

// Elicit asks the user for input (elicitation/create) and returns the answer;
// see AskAll for how the question travels in each era.
func (r *Request) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	a := AskElicit("", p)
	if err := r.AskAll(ctx, a); err != nil {
		return nil, err
	}
	return a.Result, nil
}

// Sample asks the client's model for a message (sampling/createMessage) and
// returns it; see AskAll for how the question travels in each era.
func (r *Request) Sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	a := AskSample("", p)
	if err := r.AskAll(ctx, a); err != nil {
		return nil, err
	}
	return a.Result, nil
}

// ListRoots asks the client for its roots (roots/list); see AskAll for how
// the question travels in each era.
func (r *Request) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	a := AskRoots("")
	if err := r.AskAll(ctx, a); err != nil {
		return nil, err
	}
	return a.Result, nil
}

// noAsker refuses every question: a modern request other than tools/call,
// prompts/get and resources/read cannot ask the client anything.
type noAsker struct{}

func (noAsker) ask(_ context.Context, r *Request, _ []*question) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError,
		"the handler of %s asked the client for input, which only tools/call, prompts/get and resources/read may do", r.method)
}

package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
	"github.com/weftmcp/weft/mcp"
)

// round is one round of a modern multi round-trip request (tools/call,
// prompts/get, resources/read) and the asker of its handler. The handler runs
// from the start every round; its questions are answered in order from what
// earlier rounds recorded (in requestState) and what this retry brought (in
// inputResponses). A question with no answer yet goes into the
// InputRequiredResult this round ends with, and the answers used so far go
// into its requestState, so the handler's code stays straight-line.
type round struct {
	mu      sync.Mutex                // guards the fields below: a handler may ask from several goroutines
	answers map[string]recordedAnswer // what the client has answered, by key
	used    map[string]recordedAnswer // answers the handler used this round
	pending mcp.InputRequests         // questions still unanswered, by key
	prev    jsontext.Value            // the handler state of the previous round
	next    jsontext.Value            // the handler state for the next round
	digest  []byte                    // of the params; see paramsDigest
}

// beginRound sets up the multi round-trip state of a modern retryable
// request from the retry members of its params: it verifies requestState and
// checks the shape of inputResponses.
func (r *Request) beginRound(p *mcp.InputResponseParams) error {
	rd := new(round)
	r.round, r.asker = rd, rd
	if p.RequestState == "" && len(p.InputResponses) == 0 {
		return nil // a first round: answers stays nil
	}
	rd.answers = make(map[string]recordedAnswer, len(p.InputResponses))
	if p.RequestState != "" {
		st, err := r.srv.openState(r, p.RequestState)
		if err != nil {
			return err
		}
		for k, a := range st.Answers {
			rd.answers[k] = a
		}
		rd.prev = st.Handler
	}
	for k, v := range p.InputResponses {
		if kind := jsontext.Value(v).Kind(); kind != '{' {
			return invalidParams("inputResponses[%q] must be a JSON object holding the client's result, not a JSON %s", k, jsonkind.Name(kind))
		}
		if _, recorded := rd.answers[k]; !recorded {
			rd.answers[k] = recordedAnswer{Result: jsontext.Value(v)}
		}
	}
	return nil
}

// ask answers the questions from the recorded answers, and records the rest
// as pending. Asking for a capability the request did not declare is -32021.
func (rd *round) ask(ctx context.Context, r *Request, qs []*question) error {
	for _, q := range qs {
		if !r.caps.Covers(q.required) {
			return mcp.MissingCapabilityError(q.required)
		}
	}
	missing := 0
	for _, q := range qs {
		answer, err := r.passAsk(ctx, q, rd.inputFor(q))
		switch {
		case errors.Is(err, errUnanswered):
			missing++
		case err != nil:
			return err
		default:
			q.answer = answer
		}
	}
	if missing > 0 {
		return fmt.Errorf("server: %d question(s) await the client's answer: %w", missing, ErrInputRequired)
	}
	return nil
}

// errUnanswered is what asking a question the client has not answered yet
// returns inside a round: AskMiddleware sees it wrap ErrInputRequired.
var errUnanswered = fmt.Errorf("server: the question awaits the client's answer in the retry: %w", ErrInputRequired)

// inputFor returns how q reaches the client in this round: answered from
// what the client has answered, or else recorded as an input request of
// the round's InputRequiredResult (errUnanswered).
func (rd *round) inputFor(q *question) AskHandler {
	return func(_ context.Context, ask *AskRequest) (jsontext.Value, error) {
		rd.mu.Lock()
		defer rd.mu.Unlock()
		if a, ok := rd.answers[q.key]; ok && (a.Method == "" || a.Method == q.method) {
			if rd.used == nil {
				rd.used = make(map[string]recordedAnswer)
			}
			rd.used[q.key] = recordedAnswer{Method: q.method, Result: a.Result}
			return a.Result, nil
		}
		if rd.pending == nil {
			rd.pending = make(mcp.InputRequests)
		}
		rd.pending[q.key] = mcp.InputRequest{Method: ask.Method, Params: ask.Params}
		return nil, errUnanswered
	}
}

// known returns a copy of every answer the client has given so far (those
// requestState carried and those this retry brought), for a task created
// from this round: the questions they answer are not asked again.
func (rd *round) known() map[string]recordedAnswer {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if len(rd.answers) == 0 {
		return nil
	}
	return maps.Clone(rd.answers)
}

// hasPending reports whether questions are waiting for the client.
func (rd *round) hasPending() bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return len(rd.pending) > 0
}

// inputRequired returns the InputRequiredResult that ends a round with
// unanswered questions.
func (r *Request) inputRequired() (*mcp.InputRequiredResult, error) {
	r.round.mu.Lock()
	defer r.round.mu.Unlock()
	state, err := r.srv.sealState(r)
	if err != nil {
		return nil, err
	}
	return &mcp.InputRequiredResult{
		Result:        mcp.Result{ResultType: mcp.ResultInputRequired},
		InputRequests: r.round.pending,
		RequestState:  state,
	}, nil
}

// RoundState returns the state the handler saved with SetRoundState in the
// previous round of this multi round-trip request, or nil in the first round
// and outside modern tools/call, prompts/get and resources/read.
func (r *Request) RoundState() stdjson.RawMessage {
	if r.round == nil || r.round.prev == nil {
		return nil
	}
	return stdjson.RawMessage(r.round.prev) // prev is set before the handler runs and never changes
}

// SetRoundState saves v (encoded as JSON) for the next round of this multi
// round-trip request, where RoundState returns it. It travels in the signed
// requestState: the client cannot alter it, but can read it, so it must hold
// nothing secret. It matters only when the round ends with questions
// pending; outside modern tools/call, prompts/get and resources/read it is an
// error.
func (r *Request) SetRoundState(v any) error {
	if r.round == nil {
		return fmt.Errorf("server: %s in protocol version %s has no rounds to carry state across", r.method, r.version)
	}
	raw, err := json.Marshal(v, json.Deterministic(true)) // the same state, the same bytes
	if err != nil {
		return fmt.Errorf("server: round state of type %T cannot be encoded as JSON: %w", v, err)
	}
	r.round.mu.Lock()
	r.round.next = raw
	r.round.mu.Unlock()
	return nil
}

package adversarial

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// reply is what the server answered one message with: its responses, and
// whether they came as a batch.
type reply struct {
	responses []*jsonrpc.Response
	batch     bool
}

// add adds the responses of one message the server wrote; it fails on
// anything but responses.
func (r *reply) add(t *testing.T, raw []byte) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		t.Fatalf("the server wrote an invalid message %.200q: %v", raw, err)
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		r.responses = append(r.responses, m)
	case jsonrpc.Batch:
		r.batch = true
		for _, e := range m {
			resp, ok := e.(*jsonrpc.Response)
			if !ok {
				t.Fatalf("the server wrote a batch holding %T", e)
			}
			r.responses = append(r.responses, resp)
		}
	case *jsonrpc.Request:
		t.Fatalf("the server sent %s while answering bad input", m.Method)
	}
}

// wantFor returns the answers a case must get at version v, and whether
// they come as a batch.
func (c badInput) wantFor(v string) (want []answer, batch bool) {
	if c.batch && !mcp.AllowsBatch(v) {
		return invalidNoID, false
	}
	want = c.want
	if c.wantAt != nil {
		want = c.wantAt(v)
	}
	return want, c.batch && len(want) > 0
}

// check compares the reply with what the case must get at version v: the
// same answers (code and id) in any order, as a batch when a batch is due,
// every error with a message a person can read.
func (c badInput) check(t *testing.T, v string, r *reply) {
	t.Helper()
	want, batch := c.wantFor(v)
	if r.batch != batch {
		t.Errorf("answered as a batch: %v, want %v", r.batch, batch)
	}
	got := make([]answer, 0, len(r.responses))
	for _, resp := range r.responses {
		a := answer{id: resp.ID.Raw()}
		if resp.Error != nil && resp.Error.Code == jsonrpc.CodeServerBusy && c.busyAllowed && batch {
			a.code = c.answerFor(want, a.id)
			got = append(got, a)
			continue
		}
		if resp.Error != nil {
			a.code = resp.Error.Code
			if strings.TrimSpace(resp.Error.Message) == "" {
				t.Errorf("error %d for id %s has no message", resp.Error.Code, a.id)
			}
		}
		got = append(got, a)
		if c.resultHas != "" && resp.Error == nil && !strings.Contains(string(resp.Result), c.resultHas) {
			t.Errorf("result %.300s does not hold %.40s…", resp.Result, c.resultHas)
		}
	}
	if !sameAnswers(got, want) {
		t.Errorf("got %s, want %s%s", summary(got), summary(want), firstError(r))
	}
}

// answerFor returns the code wanted for id, so that a busy refusal counts
// as that answer.
func (c badInput) answerFor(want []answer, id string) int64 {
	for _, a := range want {
		if a.id == id {
			return a.code
		}
	}
	return jsonrpc.CodeServerBusy
}

// sameAnswers reports whether a and b hold the same answers in any order.
func sameAnswers(a, b []answer) bool {
	if len(a) != len(b) {
		return false
	}
	order := func(x, y answer) int {
		if x.code != y.code {
			return int(x.code - y.code)
		}
		return strings.Compare(x.id, y.id)
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, order)
	slices.SortFunc(b, order)
	return slices.Equal(a, b)
}

// summary describes answers briefly (a huge batch by its size).
func summary(as []answer) string {
	if len(as) == 0 {
		return "no answer"
	}
	if len(as) > 5 {
		errs := 0
		for _, a := range as {
			if a.code != 0 {
				errs++
			}
		}
		return fmt.Sprintf("%d answers (%d errors)", len(as), errs)
	}
	parts := make([]string, len(as))
	for i, a := range as {
		if a.code == 0 {
			parts[i] = "result for id " + a.id
		} else {
			parts[i] = fmt.Sprintf("error %d for id %s", a.code, a.id)
		}
	}
	return strings.Join(parts, ", ")
}

// firstError quotes the first error message of a reply, for failures.
func firstError(r *reply) string {
	for _, resp := range r.responses {
		if resp.Error != nil {
			return fmt.Sprintf(" (first error: %q)", resp.Error.Message)
		}
	}
	return ""
}

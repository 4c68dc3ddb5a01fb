package e2e

import (
	stdjson "encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// wireProgress is a progress notification seen on the wire and its position
// among the recorded messages.
type wireProgress struct {
	pos    int
	params mcp.ProgressNotificationParams
}

// progressOnWire returns every progress notification the server sent.
func progressOnWire(t *testing.T, tp *tap) []wireProgress {
	t.Helper()
	var out []wireProgress
	for i, e := range tp.messages() {
		r, ok := e.msg.(*jsonrpc.Request)
		if !ok || e.sent || r.Method != mcp.NotificationProgress {
			continue
		}
		var p mcp.ProgressNotificationParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatalf("progress notification %s: %v", r.Params, err)
		}
		out = append(out, wireProgress{pos: i, params: p})
	}
	return out
}

// tokenOf returns the progress token a request carried, as JSON text.
func tokenOf(t *testing.T, r *jsonrpc.Request) string {
	t.Helper()
	var p mcp.RequestParams
	if err := json.Unmarshal(r.Params, &p); err != nil {
		t.Fatal(err)
	}
	return string(p.Meta[mcp.MetaProgressToken])
}

// Progress tokens MUST be a string or integer value: the client sends an
// integer, and the server echoes string and integer tokens exactly.
func TestProgressTokensMustBeStringOrInteger(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		var seen int
		callTool(t, s, "progress", `{"steps":2}`, client.WithProgress(func(*mcp.ProgressNotificationParams) { seen++ }))
		sent := tokenOf(t, tp.sent(mcp.MethodToolsCall)[0])
		if _, err := fmt.Sscanf(sent, "%d", new(int64)); err != nil || strings.ContainsAny(sent, ".eE") {
			t.Errorf("the client's progress token is %s, want a JSON integer", sent)
		}
		if seen != 2 {
			t.Errorf("the callback saw %d notifications, want 2", seen)
		}

		// A caller's own string token travels as given and comes back exact.
		p := &mcp.CallToolParams{Name: "progress", Arguments: stdjson.RawMessage(`{"steps":1}`)}
		p.Meta = mcp.Meta{mcp.MetaProgressToken: stdjson.RawMessage(`"tok-\u00e9"`)}
		if _, err := s.CallTool(ctxFor(t), p); err != nil {
			t.Fatal(err)
		}
		for _, w := range progressOnWire(t, tp) {
			if tok := w.params.ProgressToken.Raw(); tok != sent && tok != `"tok-é"` {
				t.Errorf("the server sent progress for token %s; the client sent %s and \"tok-é\"", tok, sent)
			}
		}
		if n := len(progressOnWire(t, tp)); n != 3 {
			t.Errorf("%d progress notifications on the wire, want 3", n)
		}
	})
}

// Progress tokens MUST be unique across all active requests: concurrent
// calls get distinct tokens, and each callback sees only its own call's
// notifications.
func TestProgressTokensMustBeUniqueAcrossAllActiveRequests(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		const calls, steps = 6, 5
		var wg sync.WaitGroup
		got := make([][]float64, calls)
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "progress", Arguments: stdjson.RawMessage(fmt.Sprintf(`{"steps":%d}`, steps))},
					client.WithProgress(func(p *mcp.ProgressNotificationParams) { got[i] = append(got[i], p.Progress) }))
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		tokens := map[string]bool{}
		for _, r := range tp.sent(mcp.MethodToolsCall) {
			tokens[tokenOf(t, r)] = true
		}
		if len(tokens) != calls {
			t.Errorf("%d concurrent calls used %d distinct tokens", calls, len(tokens))
		}
		for i, g := range got {
			if fmt.Sprint(g) != "[1 2 3 4 5]" {
				t.Errorf("call %d's callback saw %v, want its own [1 2 3 4 5]", i, g)
			}
		}
	})
}

// The progress value MUST increase with each notification, and the callback
// gets every notification in order.
func TestProgressValueMustIncreaseWithEachNotification(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		var msgs []string
		callTool(t, s, "progress", `{"steps":4}`, client.WithProgress(func(p *mcp.ProgressNotificationParams) {
			msgs = append(msgs, fmt.Sprintf("%v/%v %s", p.Progress, p.Total, p.Message))
		}))
		last := 0.0
		for _, w := range progressOnWire(t, tp) {
			if w.params.Progress <= last {
				t.Errorf("progress %v follows %v", w.params.Progress, last)
			}
			last = w.params.Progress
		}
		want := "1/4 step 1 of 4,2/4 step 2 of 4,3/4 step 3 of 4,4/4 step 4 of 4"
		if !mcp.SupportsProgressMessage(e.version) {
			want = "1/4 ,2/4 ,3/4 ,4/4 "
		}
		if got := strings.Join(msgs, ","); got != want {
			t.Errorf("callback saw %s, want %s", got, want)
		}
	})
}

// Progress notifications MUST only reference tokens that were provided in an
// active request: each arrives after its request and before its response.
func TestProgressNotificationsMustOnlyReferenceTokensOfActiveRequests(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		for range 3 {
			callTool(t, s, "progress", `{"steps":3}`, client.WithProgress(func(*mcp.ProgressNotificationParams) {}))
		}
		active := map[string][2]int{} // token → positions of its request and response
		for i, e := range tp.messages() {
			if r, ok := e.msg.(*jsonrpc.Request); ok && e.sent && r.Method == mcp.MethodToolsCall {
				_, end := tp.response(r.ID)
				active[tokenOf(t, r)] = [2]int{i, end}
			}
		}
		wire := progressOnWire(t, tp)
		if len(wire) != 9 {
			t.Fatalf("%d progress notifications, want 9", len(wire))
		}
		for _, w := range wire {
			span, ok := active[w.params.ProgressToken.Raw()]
			if !ok || w.pos < span[0] || w.pos > span[1] {
				t.Errorf("progress for token %s at position %d: its request spans %v", w.params.ProgressToken, w.pos, span)
			}
		}
	})
}

// Progress notifications MUST stop after completion: the fixture's tool tries
// once more after its response, is refused, and nothing reaches the wire.
func TestProgressNotificationsMustStopAfterCompletion(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		var done, late atomic.Bool
		callTool(t, s, "progress", `{"steps":2,"tag":"late"}`, client.WithProgress(func(*mcp.ProgressNotificationParams) {
			late.Store(late.Load() || done.Load())
		}))
		done.Store(true)
		// late_progress releases the attempt and waits for its outcome, so
		// anything it sent is on the wire before this response.
		if got := outText(t, callTool(t, s, "late_progress", `{"tag":"late"}`)); !strings.Contains(got, "already been answered") {
			t.Errorf("the late progress attempt returned %q, want the server's refusal", got)
		}
		token := tokenOf(t, tp.sent(mcp.MethodToolsCall)[0])
		_, end := tp.response(tp.sent(mcp.MethodToolsCall)[0].ID)
		for _, w := range progressOnWire(t, tp) {
			if w.params.ProgressToken.Raw() == token && w.pos > end {
				t.Errorf("progress %v for token %s arrived after the response", w.params.Progress, token)
			}
		}
		if late.Load() {
			t.Error("the callback ran after the call returned")
		}
	})
}

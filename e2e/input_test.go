package e2e

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// answerer is a client that answers every kind of input and records what
// it was asked, in order.
type answerer struct {
	mu    sync.Mutex
	asked []string
	// decline makes the form handler decline instead of accepting.
	decline bool
}

func (a *answerer) note(what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, what)
}

func (a *answerer) options() *client.Options {
	return &client.Options{
		ElicitForm: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			a.note("form:" + p.Message)
			if a.decline {
				return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
			}
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"name": stdjson.RawMessage(`"octocat"`)}}, nil
		},
		ElicitURL: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			a.note("url:" + p.URL)
			return &mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
		},
		CreateMessage: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			a.note("sample:" + sampledText(&mcp.CreateMessageResult{Content: p.Messages[0].Content}))
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: mcp.SamplingContents{&mcp.TextContent{Text: "4"}}}, nil
		},
		ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			a.note("roots")
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work", Name: "work"}}}, nil
		},
	}
}

// inputKinds returns what the fixture's ask tool can ask for at version v.
func inputKinds(v string) []string {
	kinds := []string{"sample", "roots"}
	if mcp.SupportsElicitation(v) {
		kinds = append(kinds, "elicit")
	}
	if mcp.SupportsURLElicitation(v) {
		kinds = append(kinds, "url")
	}
	return kinds
}

// toolCalls returns the params of the tools/call requests the client sent.
func toolCalls(t *testing.T, tp *tap) ([]jsonrpc.ID, []mcp.CallToolParams) {
	t.Helper()
	var ids []jsonrpc.ID
	var ps []mcp.CallToolParams
	for _, r := range tp.sent(mcp.MethodToolsCall) {
		var p mcp.CallToolParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatal(err)
		}
		ids, ps = append(ids, r.ID), append(ps, p)
	}
	return ids, ps
}

// Sampling, elicitation (form and URL) and roots reach the client's handlers
// as server-to-client requests in the legacy era and as one input_required
// round in the modern era; either way the caller sees only the final result.
func TestInputRequestsInEveryEra(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		a := &answerer{}
		s, tp := e.connect(t, a.options())
		kinds := inputKinds(e.version)
		args, _ := json.Marshal(askIn{Kinds: kinds})
		got := outText(t, callTool(t, s, "ask", string(args)))
		want := map[string]string{"sample": "sample=4", "roots": "roots=file:///work", "elicit": `elicit=accept:"octocat"`, "url": "url=accept"}
		var parts []string
		for _, k := range kinds {
			parts = append(parts, want[k])
		}
		if got != strings.Join(parts, " ") {
			t.Errorf("ask %v = %q, want %q", kinds, got, strings.Join(parts, " "))
		}
		if len(a.asked) != len(kinds) {
			t.Errorf("the handlers were asked %v, want one question per kind %v", a.asked, kinds)
		}

		serverRequests := len(tp.received(mcp.MethodSamplingCreateMessage)) + len(tp.received(mcp.MethodRootsList)) + len(tp.received(mcp.MethodElicitationCreate))
		ids, calls := toolCalls(t, tp)
		if !s.IsModern() {
			if serverRequests != len(kinds) || len(calls) != 1 {
				t.Errorf("legacy: %d server requests and %d tools/call, want %d and 1", serverRequests, len(calls), len(kinds))
			}
			return
		}
		if serverRequests != 0 {
			t.Errorf("a modern server sent %d requests", serverRequests)
		}
		if len(calls) != 2 || ids[0] == ids[1] {
			t.Fatalf("modern: tools/call sent with ids %v, want the call and one retry with a new id", ids)
		}
		if calls[0].RequestState != "" || calls[0].InputResponses != nil {
			t.Errorf("the first call carries retry members")
		}
		if calls[1].RequestState == "" || len(calls[1].InputResponses) != len(kinds) {
			t.Errorf("the retry carries requestState %q and %d input responses, want the state and %d", calls[1].RequestState, len(calls[1].InputResponses), len(kinds))
		}
		for _, k := range kinds {
			if _, ok := calls[1].InputResponses[k]; !ok {
				t.Errorf("the retry has no input response for %q", k)
			}
		}
	})
}

// A handler that asks again after its first answer takes several rounds in
// the modern era (each retry with a new id) and several server requests in
// the legacy one.
func TestMultiRoundInput(t *testing.T) {
	forEach(t, elicitationVersions(), func(t *testing.T, e env) {
		a := &answerer{}
		s, tp := e.connect(t, a.options())
		if got := outText(t, callTool(t, s, "ask_twice", `{}`)); got != `"octocat" / 4` {
			t.Errorf("ask_twice = %q", got)
		}
		if want := []string{"form:What is your name?", `sample:greet "octocat"`}; !slices.Equal(a.asked, want) {
			t.Errorf("the handlers were asked %v, want %v", a.asked, want)
		}
		ids, calls := toolCalls(t, tp)
		if !s.IsModern() {
			return
		}
		if len(calls) != 3 || len(map[jsonrpc.ID]bool{ids[0]: true, ids[1]: true, ids[2]: true}) != 3 {
			t.Fatalf("tools/call sent with ids %v, want three rounds with distinct ids", ids)
		}
		if calls[1].RequestState == calls[2].RequestState {
			t.Error("the third round echoes the first round's state, not the second's")
		}
	})
}

// Multi round-trip input works on prompts/get and resources/read too.
func TestInputOnPromptsAndResources(t *testing.T) {
	forEach(t, elicitationVersions(), func(t *testing.T, e env) {
		a := &answerer{}
		s, _ := e.connect(t, a.options())
		ctx := ctxFor(t)
		pr, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "confirm"})
		if err != nil {
			t.Fatal(err)
		}
		if tc := pr.Messages[0].Content.(*mcp.TextContent); tc.Text != `confirmed by "octocat"` {
			t.Errorf("confirm = %q", tc.Text)
		}
		for _, decline := range []bool{false, true} {
			a.decline = decline
			rr, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "res://secret"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{false: "s3cr3t", true: "withheld"}[decline]
			if tc := rr.Contents[0].(*mcp.TextResourceContents); tc.Text != want {
				t.Errorf("res://secret with decline=%v = %q, want %q", decline, tc.Text, want)
			}
		}
	})
}

// A tool that needs a capability the client did not declare is refused:
// -32021 naming it in the modern era, a tool error in the legacy one.
func TestInputNeedsDeclaredCapabilities(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		for _, c := range []struct{ name, args string }{{"needs_sampling", `{}`}, {"ask", `{"kinds":["roots"]}`}} {
			name := c.name
			res, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: name, Arguments: stdjson.RawMessage(c.args)})
			if !s.IsModern() {
				if err != nil || !res.IsError {
					t.Errorf("legacy %s without the capability: %+v, %v; want a tool error", name, res, err)
				}
				continue
			}
			var re *jsonrpc.Error
			if !errors.As(err, &re) || re.Code != mcp.CodeMissingRequiredClientCapability {
				t.Fatalf("modern %s without the capability: %v, want -32021", name, err)
			}
			var data mcp.MissingCapabilityData
			if json.Unmarshal(re.Data, &data) != nil || (data.RequiredCapabilities.Sampling == nil && data.RequiredCapabilities.Roots == nil) {
				t.Errorf("-32021 data %s does not name the missing capability", re.Data)
			}
		}
		if n := len(tp.received(mcp.MethodRootsList)); n != 0 {
			t.Errorf("the server asked for roots %d times without the capability", n)
		}
	})
}

// A requestState the client altered fails the server's integrity check: the
// call fails with -32602 and the handlers' answers are not used.
func TestTamperedRequestStateIsRejected(t *testing.T) {
	forEach(t, []string{mcp.Version20260728}, func(t *testing.T, e env) {
		a := &answerer{}
		s, tp := e.connect(t, a.options())
		tp.setAlter(func(msg jsonrpc.Message) jsonrpc.Message {
			r, ok := msg.(*jsonrpc.Request)
			if !ok || r.Method != mcp.MethodToolsCall {
				return msg
			}
			var params map[string]stdjson.RawMessage
			if json.Unmarshal(r.Params, &params) != nil || params["requestState"] == nil {
				return msg
			}
			var state string
			json.Unmarshal(params["requestState"], &state)
			flipped := []byte(state)
			flipped[len(flipped)/2] ^= 1
			params["requestState"], _ = json.Marshal(string(flipped))
			raw, _ := json.Marshal(params)
			return &jsonrpc.Request{ID: r.ID, Method: r.Method, Params: raw}
		})
		_, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "ask", Arguments: stdjson.RawMessage(`{"kinds":["elicit"]}`)})
		var re *jsonrpc.Error
		if !errors.As(err, &re) || re.Code != jsonrpc.CodeInvalidParams || !strings.Contains(re.Message, "integrity") {
			t.Fatalf("a tampered retry got %v, want -32602 from the integrity check", err)
		}
		if n := len(tp.sent(mcp.MethodToolsCall)); n != 2 {
			t.Errorf("tools/call sent %d times, want the call and one tampered retry", n)
		}
	})
}

// elicitationVersions are the versions that have elicitation.
func elicitationVersions() []string {
	var out []string
	for _, v := range allVersions {
		if mcp.SupportsElicitation(v) {
			out = append(out, v)
		}
	}
	return out
}

package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// nameSchema asks for one string, name.
var nameSchema = &mcp.ElicitSchema{Type: "object", Properties: mcp.ElicitProperties{{Name: "name", Schema: mcp.PrimitiveSchema{Type: "string"}}}}

// text returns the first text block of a sampled message.
func text(m *mcp.CreateMessageResult) string {
	if len(m.Content) == 0 {
		return ""
	}
	if tc, ok := m.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// askServer has tools, a prompt and a resource that ask the client things.
func askServer(t *testing.T, opts *Options) *Server {
	s := newTestServer(t, opts)
	AddTool(s, &mcp.Tool{Name: "elicit", Description: "Asks for a name."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Hello, %s (%s)!", res.Content["name"], res.Action), nil
	})
	AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the model."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		res, err := r.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 100, Messages: []mcp.SamplingMessage{
			{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Capital of France?"}}}}})
		if err != nil {
			return "", err
		}
		return "LLM: " + text(res), nil
	})
	AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists roots."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		res, err := r.ListRoots(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d roots: %s", len(res.Roots), res.Roots[0].URI), nil
	})
	AddTool(s, &mcp.Tool{Name: "all", Description: "Asks three things at once."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		name := AskElicit("user_name", &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
		capital := AskSample("capital_question", &mcp.CreateMessageParams{MaxTokens: 10, Messages: []mcp.SamplingMessage{
			{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Capital?"}}}}})
		roots := AskRoots("client_roots")
		if err := r.SetRoundState(map[string]string{"asked": "all"}); err != nil && r.IsModern() {
			return "", err
		}
		if err := r.AskAll(ctx, name, capital, roots); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s|%s|%s|%s", name.Result.Content["name"], text(capital.Result), roots.Result.Roots[0].URI, r.RoundState()), nil
	})
	AddTool(s, &mcp.Tool{Name: "multi_round", Description: "Asks in two rounds."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		first := AskElicit("step1", &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
		if err := r.AskAll(ctx, first); err != nil {
			return "", err
		}
		if err := r.SetRoundState(map[string]any{"round": 2, "name": first.Result.Content["name"]}); err != nil {
			return "", err
		}
		second := AskElicit("step2", &mcp.ElicitParams{Message: "Colour?", RequestedSchema: nameSchema})
		if err := r.AskAll(ctx, second); err != nil {
			return "", err
		}
		return fmt.Sprintf("state-ok %s %s %s", first.Result.Content["name"], second.Result.Content["name"], r.RoundState()), nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "ask_prompt", Description: "Asks for context."}, func(ctx context.Context, r *Request, _ map[string]string) (*mcp.GetPromptResult, error) {
		a := AskElicit("user_context", &mcp.ElicitParams{Message: "Context?", RequestedSchema: nameSchema})
		if err := r.AskAll(ctx, a); err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "context: " + string(a.Result.Content["name"])}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://ask", Name: "ask"}, func(ctx context.Context, r *Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Which?", RequestedSchema: nameSchema})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: string(res.Content["name"])}}}, nil
	})
	s.SetCompletionHandler(func(ctx context.Context, r *Request, _ *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		if _, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "?", RequestedSchema: nameSchema}); err != nil {
			return nil, err
		}
		return &mcp.CompleteResult{}, nil
	})
	return s
}

// answers is a client that answers every question.
func answers(_ context.Context, method string, _ stdjson.RawMessage) (any, error) {
	switch method {
	case mcp.MethodElicitationCreate:
		return stdjson.RawMessage(`{"action":"accept","content":{"name":"Alice"}}`), nil
	case mcp.MethodSamplingCreateMessage:
		return stdjson.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"}`), nil
	case mcp.MethodRootsList:
		return stdjson.RawMessage(`{"roots":[{"uri":"file:///project"}]}`), nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no %s", method)
}

const allCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

func TestLegacyAsk_ServerToClientRequests(t *testing.T) {
	s := askServer(t, nil)
	for _, v := range []string{mcp.Version20250618, mcp.Version20251125} {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, allCaps, answers)
			cases := map[string]string{
				"elicit": "Hello, \\\"Alice\\\" (accept)!",
				"sample": "LLM: Paris",
				"roots":  "1 roots: file:///project",
				"all":    "\\\"Alice\\\"|Paris|file:///project|",
			}
			for tool, want := range cases {
				res := c.mustCall("tools/call", `{"name":"`+tool+`"}`)
				if !strings.Contains(string(res), want) || member(t, res, "isError") != "" {
					t.Errorf("%s: %s, want text %s", tool, res, want)
				}
			}
			if got := member(t, c.mustCall("prompts/get", `{"name":"ask_prompt"}`), "messages"); !strings.Contains(got, "Alice") {
				t.Errorf("prompt that asks: %s", got)
			}
			if got := member(t, c.mustCall("resources/read", `{"uri":"test://ask"}`), "contents"); !strings.Contains(got, "Alice") {
				t.Errorf("resource that asks: %s", got)
			}
		})
	}
}

func TestLegacyAsk_MissingCapabilitySaysWhich(t *testing.T) {
	s := askServer(t, nil)
	c := open(t, s, mcp.Version20251125, `{"roots":{}}`, answers)
	for tool, want := range map[string]string{"elicit": `{\"elicitation\":{}}`, "sample": `{\"sampling\":{}}`} {
		res := c.mustCall("tools/call", `{"name":"`+tool+`"}`)
		if member(t, res, "isError") != "true" || !strings.Contains(string(res), want) || !strings.Contains(string(res), "initialize") {
			t.Errorf("%s without the capability: %s", tool, res)
		}
	}
	old := open(t, s, mcp.Version20250326, allCaps, answers)
	if res := old.mustCall("tools/call", `{"name":"elicit"}`); !strings.Contains(string(res), "does not exist in protocol version 2025-03-26") {
		t.Errorf("elicitation in 2025-03-26: %s", res)
	}
}

func TestLegacyAsk_ClientErrorIsAToolError(t *testing.T) {
	s := askServer(t, nil)
	c := open(t, s, mcp.Version20251125, allCaps, func(context.Context, string, stdjson.RawMessage) (any, error) {
		return nil, jsonrpc.NewError(-1, "user closed the dialog")
	})
	res := c.mustCall("tools/call", `{"name":"elicit"}`)
	if member(t, res, "isError") != "true" || !strings.Contains(string(res), "user closed the dialog") {
		t.Errorf("a client's error answer: %s", res)
	}
}

// mrtr drives modern requests through ServeRequest.
type mrtr struct {
	t    *testing.T
	s    *Server
	info transport.RequestInfo
	caps string
	id   int64
}

// call serves one modern request; params are without _meta.
func (m *mrtr) call(method, params string) *jsonrpc.Response {
	m.t.Helper()
	m.id++
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + m.caps + `}`
	body := "{" + meta + "}"
	if params != "{}" {
		body = "{" + meta + "," + strings.TrimPrefix(params, "{")
	}
	return m.s.ServeRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(m.id), Method: method, Params: stdjson.RawMessage(body)}, m.info, nil)
}

// inputRequired asserts an InputRequiredResult and returns it.
func (m *mrtr) inputRequired(resp *jsonrpc.Response) *mcp.InputRequiredResult {
	m.t.Helper()
	if resp.Error != nil {
		m.t.Fatalf("want an InputRequiredResult, got error %v", resp.Error)
	}
	var ir mcp.InputRequiredResult
	decode(m.t, resp.Result, &ir)
	if ir.ResultType != mcp.ResultInputRequired || ir.RequestState == "" || len(ir.InputRequests) == 0 {
		m.t.Fatalf("want an InputRequiredResult with inputRequests and requestState, got %s", resp.Result)
	}
	if member(m.t, resp.Result, "ttlMs") != "" {
		m.t.Errorf("an InputRequiredResult carries caching hints: %s", resp.Result)
	}
	return &ir
}

// complete asserts a complete result and returns it raw.
func (m *mrtr) complete(resp *jsonrpc.Response) stdjson.RawMessage {
	m.t.Helper()
	if resp.Error != nil {
		m.t.Fatalf("want a complete result, got error %v", resp.Error)
	}
	if member(m.t, resp.Result, "resultType") != `"complete"` {
		m.t.Fatalf("want a complete result, got %s", resp.Result)
	}
	return resp.Result
}

// retry builds the params of a retry.
func retry(params string, responses map[string]string, state string) string {
	var parts []string
	for k, v := range responses {
		parts = append(parts, fmt.Sprintf("%q:%s", k, v))
	}
	extra := `"inputResponses":{` + strings.Join(parts, ",") + `}`
	if state != "" {
		extra += fmt.Sprintf(`,"requestState":%q`, state)
	}
	return strings.TrimSuffix(params, "}") + sep(params) + extra + "}"
}

func sep(params string) string {
	if params == "{}" {
		return ""
	}
	return ","
}

const (
	aliceAnswer = `{"action":"accept","content":{"name":"Alice"}}`
	bobAnswer   = `{"action":"accept","content":{"name":"Blue"}}`
	parisAnswer = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`
	rootsAnswer = `{"roots":[{"uri":"file:///project"}]}`
)

func TestMRTR_BasicRoundTrips(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	cases := []struct {
		name, method, params, key, inputMethod, answer, want string
	}{
		{"elicitation", "tools/call", `{"name":"elicit","arguments":{}}`, "elicitation-1", mcp.MethodElicitationCreate, aliceAnswer, `Hello, \"Alice\"`},
		{"sampling", "tools/call", `{"name":"sample"}`, "sampling-1", mcp.MethodSamplingCreateMessage, parisAnswer, "LLM: Paris"},
		{"roots", "tools/call", `{"name":"roots"}`, "roots-1", mcp.MethodRootsList, rootsAnswer, "file:///project"},
		{"prompt", "prompts/get", `{"name":"ask_prompt"}`, "user_context", mcp.MethodElicitationCreate, aliceAnswer, `context: \"Alice\"`},
		{"resource", "resources/read", `{"uri":"test://ask"}`, "elicitation-1", mcp.MethodElicitationCreate, aliceAnswer, `\"Alice\"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ir := m.inputRequired(m.call(tc.method, tc.params))
			in, ok := ir.InputRequests[tc.key]
			if !ok || in.Method != tc.inputMethod || len(ir.InputRequests) != 1 {
				t.Fatalf("inputRequests %+v, want one %s under %q", ir.InputRequests, tc.inputMethod, tc.key)
			}
			res := m.complete(m.call(tc.method, retry(tc.params, map[string]string{tc.key: tc.answer}, ir.RequestState)))
			if !strings.Contains(string(res), tc.want) {
				t.Errorf("result %s, want %s", res, tc.want)
			}
			if tc.method == "resources/read" && member(t, res, "ttlMs") == "" {
				t.Errorf("the complete resources/read lacks caching hints: %s", res)
			}
		})
	}
}

func TestMRTR_MultipleInputsInOneResult(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	ir := m.inputRequired(m.call("tools/call", `{"name":"all"}`))
	want := map[string]string{"user_name": mcp.MethodElicitationCreate, "capital_question": mcp.MethodSamplingCreateMessage, "client_roots": mcp.MethodRootsList}
	if len(ir.InputRequests) != 3 {
		t.Fatalf("inputRequests %+v", ir.InputRequests)
	}
	for k, method := range want {
		if ir.InputRequests[k].Method != method {
			t.Errorf("inputRequests[%q] = %+v, want %s", k, ir.InputRequests[k], method)
		}
	}
	if ir.InputRequests["client_roots"].Params != nil {
		t.Errorf("roots/list carries params %s", ir.InputRequests["client_roots"].Params)
	}
	res := m.complete(m.call("tools/call", retry(`{"name":"all"}`, map[string]string{
		"user_name": aliceAnswer, "capital_question": parisAnswer, "client_roots": rootsAnswer}, ir.RequestState)))
	if !strings.Contains(string(res), `\"Alice\"|Paris|file:///project|{\"asked\":\"all\"}`) {
		t.Errorf("result %s", res)
	}
	// Answering part only asks again for the rest, and keeps what was answered.
	partial := m.inputRequired(m.call("tools/call", retry(`{"name":"all"}`, map[string]string{"user_name": aliceAnswer}, ir.RequestState)))
	if len(partial.InputRequests) != 2 || partial.InputRequests["user_name"].Method != "" {
		t.Errorf("after a partial answer, inputRequests %+v", partial.InputRequests)
	}
	res = m.complete(m.call("tools/call", retry(`{"name":"all"}`, map[string]string{"capital_question": parisAnswer, "client_roots": rootsAnswer}, partial.RequestState)))
	if !strings.Contains(string(res), `\"Alice\"|Paris`) {
		t.Errorf("the recorded answer was lost: %s", res)
	}
}

func TestMRTR_MultiRoundWithEvolvingState(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: `{"elicitation":{}}`}
	r1 := m.inputRequired(m.call("tools/call", `{"name":"multi_round"}`))
	if _, ok := r1.InputRequests["step1"]; !ok {
		t.Fatalf("round 1 asks %+v", r1.InputRequests)
	}
	r2 := m.inputRequired(m.call("tools/call", retry(`{"name":"multi_round"}`, map[string]string{"step1": aliceAnswer}, r1.RequestState)))
	if _, ok := r2.InputRequests["step2"]; !ok || len(r2.InputRequests) != 1 {
		t.Fatalf("round 2 asks %+v", r2.InputRequests)
	}
	if r2.RequestState == r1.RequestState {
		t.Errorf("requestState did not change between rounds")
	}
	res := m.complete(m.call("tools/call", retry(`{"name":"multi_round"}`, map[string]string{"step2": bobAnswer}, r2.RequestState)))
	if !strings.Contains(string(res), `state-ok \"Alice\" \"Blue\" {\"name\":\"Alice\",\"round\":2}`) {
		t.Errorf("round 3 result %s", res)
	}
}

func TestMRTR_MissingResponseIsAskedAgain(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	ir := m.inputRequired(m.call("tools/call", `{"name":"elicit"}`))
	again := m.inputRequired(m.call("tools/call", retry(`{"name":"elicit"}`, map[string]string{"wrong_key": aliceAnswer}, ir.RequestState)))
	if _, ok := again.InputRequests["elicitation-1"]; !ok {
		t.Errorf("a missing answer was not asked again: %+v", again.InputRequests)
	}
	noState := m.inputRequired(m.call("tools/call", retry(`{"name":"elicit"}`, map[string]string{"wrong_key": aliceAnswer}, "")))
	if _, ok := noState.InputRequests["elicitation-1"]; !ok {
		t.Errorf("without state, a wrong key was not asked again: %+v", noState.InputRequests)
	}
}

func TestMRTR_ExtraKeysAreIgnored(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	res := m.complete(m.call("tools/call", retry(`{"name":"all"}`, map[string]string{
		"user_name": aliceAnswer, "capital_question": parisAnswer, "client_roots": rootsAnswer,
		"unknown_extra_key": `{"action":"accept","content":{"foo":"bar"}}`}, "")))
	if !strings.Contains(string(res), "Paris") {
		t.Errorf("result %s", res)
	}
}

func TestMRTR_InvalidInputResponses(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	for _, bad := range []string{`12345`, `"text"`, `[1]`} {
		resp := m.call("tools/call", retry(`{"name":"elicit"}`, map[string]string{"elicitation-1": bad}, ""))
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, `inputResponses["elicitation-1"]`) {
			t.Errorf("answer %s: %s %v", bad, resp.Result, resp.Error)
		}
	}
	resp := m.call("tools/call", retry(`{"name":"sample"}`, map[string]string{"sampling-1": `{"role":7}`}, ""))
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, "sampling-1") {
		t.Errorf("a malformed sampling answer: %s %v", resp.Result, resp.Error)
	}
}

func TestMRTR_TamperedExpiredAndMismatchedState(t *testing.T) {
	s := askServer(t, nil)
	m := &mrtr{t: t, s: s, caps: allCaps, info: transport.RequestInfo{Principal: "alice"}}
	ir := m.inputRequired(m.call("tools/call", `{"name":"elicit"}`))
	answer := map[string]string{"elicitation-1": aliceAnswer}
	reject := func(name, method, params, want string) {
		t.Helper()
		resp := m.call(method, params)
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, want) {
			t.Errorf("%s: %s %v, want -32602 saying %q", name, resp.Result, resp.Error, want)
		}
	}
	reject("tampered", "tools/call", retry(`{"name":"elicit"}`, answer, ir.RequestState+"-TAMPERED"), "integrity")
	flipped := []byte(ir.RequestState)
	flipped[len(flipped)/2] ^= 1
	reject("flipped", "tools/call", retry(`{"name":"elicit"}`, answer, string(flipped)), "integrity")
	reject("other params", "tools/call", retry(`{"name":"elicit","arguments":{"x":1}}`, answer, ir.RequestState), "other params")
	reject("other method", "prompts/get", retry(`{"name":"ask_prompt"}`, answer, ir.RequestState), "issued for tools/call")
	m.info.Principal = "mallory"
	reject("other principal", "tools/call", retry(`{"name":"elicit"}`, answer, ir.RequestState), "another principal")
	m.info.Principal = "alice"

	other := &mrtr{t: t, s: askServer(t, nil), caps: allCaps, info: m.info}
	resp := other.call("tools/call", retry(`{"name":"elicit"}`, answer, ir.RequestState))
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "Options.StateKey") {
		t.Errorf("state from another server key: %v", resp.Error)
	}
	s.now = func() time.Time { return time.Now().Add(DefaultStateTTL + time.Second) }
	reject("expired", "tools/call", retry(`{"name":"elicit"}`, answer, ir.RequestState), "expired")
	s.now = time.Now
	// The untouched state still works, and the same key on two servers works too.
	m.complete(m.call("tools/call", retry(`{"name":"elicit"}`, answer, ir.RequestState)))
	key := []byte("0123456789abcdef0123456789abcdef")
	a := &mrtr{t: t, s: askServer(t, &Options{StateKey: key}), caps: allCaps}
	b := &mrtr{t: t, s: askServer(t, &Options{StateKey: key}), caps: allCaps}
	shared := a.inputRequired(a.call("tools/call", `{"name":"elicit"}`))
	b.complete(b.call("tools/call", retry(`{"name":"elicit"}`, answer, shared.RequestState)))
}

func TestMRTR_ArgumentOrderAndMetaDoNotChangeTheDigest(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	AddTool(m.s, &mcp.Tool{Name: "args", Description: "Asks, with arguments."}, func(ctx context.Context, r *Request, in map[string]any) (string, error) {
		if _, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "?", RequestedSchema: nameSchema}); err != nil {
			return "", err
		}
		return "ok", nil
	})
	ir := m.inputRequired(m.call("tools/call", `{"name":"args","arguments":{"a":1,"b":[true,"x"]}}`))
	m.caps = `{"elicitation":{},"sampling":{}}` // _meta may change between rounds
	m.complete(m.call("tools/call", retry(`{"arguments":{"b":[true,"x"],"a":1.0},"name":"args"}`, map[string]string{"elicitation-1": aliceAnswer}, ir.RequestState)))
}

func TestMRTR_OnlyDeclaredCapabilities(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: `{"sampling":{}}`}
	resp := m.call("tools/call", `{"name":"all"}`)
	if resp.Error == nil || resp.Error.Code != mcp.CodeMissingRequiredClientCapability ||
		string(resp.Error.Data) != `{"requiredCapabilities":{"elicitation":{}}}` {
		t.Errorf("asking for undeclared elicitation: %s %v", resp.Result, resp.Error)
	}
	ir := m.inputRequired(m.call("tools/call", `{"name":"sample"}`))
	if len(ir.InputRequests) != 1 || ir.InputRequests["sampling-1"].Method != mcp.MethodSamplingCreateMessage {
		t.Errorf("inputRequests %+v", ir.InputRequests)
	}
}

func TestMRTR_NotOnOtherMethods(t *testing.T) {
	m := &mrtr{t: t, s: askServer(t, nil), caps: allCaps}
	resp := m.call("completion/complete", `{"ref":{"type":"ref/prompt","name":"ask_prompt"},"argument":{"name":"a","value":""}}`)
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInternalError || member(t, resp.Result, "resultType") != "" {
		t.Errorf("a completion handler that asks: %s %v, want -32603 and no InputRequiredResult", resp.Result, resp.Error)
	}
	// inputResponses and requestState on other methods are ignored.
	for _, method := range []string{"tools/list", "prompts/list"} {
		res := m.complete(m.call(method, `{"inputResponses":{"x":{}},"requestState":"garbage"}`))
		if member(t, res, "resultType") != `"complete"` {
			t.Errorf("%s: %s", method, res)
		}
	}
}

func TestMRTR_OverAConnection(t *testing.T) {
	c := open(t, askServer(t, nil), mcp.Version20260728, allCaps, nil)
	res := c.mustCall("tools/call", `{"name":"elicit"}`)
	var ir mcp.InputRequiredResult
	decode(t, res, &ir)
	if ir.ResultType != mcp.ResultInputRequired {
		t.Fatalf("result %s", res)
	}
	final := c.mustCall("tools/call", retry(`{"name":"elicit"}`, map[string]string{"elicitation-1": aliceAnswer}, ir.RequestState))
	if !strings.Contains(string(final), "Alice") {
		t.Errorf("retry answered %s", final)
	}
	c.noNote() // no server-to-client request went out
}

func TestMRTR_SetRoundStateOutsideRounds(t *testing.T) {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "state", Description: "Saves state."}, func(_ context.Context, r *Request, _ struct{}) (string, error) {
		err := r.SetRoundState(1)
		if err == nil {
			return "", errors.New("SetRoundState succeeded in a legacy session")
		}
		if r.RoundState() != nil {
			return "", errors.New("RoundState is not nil")
		}
		return err.Error(), nil
	})
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	if res := c.mustCall("tools/call", `{"name":"state"}`); !strings.Contains(string(res), "no rounds") {
		t.Errorf("%s", res)
	}
}

func TestLegacyAsk_IncludeContextNeedsSamplingContextOnlyFrom20251125(t *testing.T) {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "sample_with_context", Description: "Asks the model with this server's context."},
		func(ctx context.Context, r *Request, _ struct{}) (string, error) {
			res, err := r.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 10, IncludeContext: mcp.IncludeContextThisServer,
				Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Capital?"}}}}})
			if err != nil {
				return "", err
			}
			return "LLM: " + text(res), nil
		})
	for _, v := range []string{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618} {
		c := open(t, s, v, `{"sampling":{}}`, answers)
		if res := c.mustCall("tools/call", `{"name":"sample_with_context"}`); !strings.Contains(string(res), "LLM: Paris") {
			t.Errorf("%s, sampling declared (which has no context member in this version): %s", v, res)
		}
	}
	c := open(t, s, mcp.Version20251125, `{"sampling":{}}`, answers)
	if res := c.mustCall("tools/call", `{"name":"sample_with_context"}`); member(t, res, "isError") != "true" ||
		!strings.Contains(string(res), `\"context\"`) {
		t.Errorf("2025-11-25 without sampling.context: %s", res)
	}
}

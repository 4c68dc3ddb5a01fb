package client

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// inputRequired encodes an input_required result.
func inputRequired(t *testing.T, state string, reqs map[string]any) stdjson.RawMessage {
	t.Helper()
	ir := mcp.InputRequiredResult{Result: mcp.Result{ResultType: mcp.ResultInputRequired}, RequestState: state}
	for key, params := range reqs {
		method := map[string]string{"elicit": mcp.MethodElicitationCreate, "url": mcp.MethodElicitationCreate,
			"sample": mcp.MethodSamplingCreateMessage, "roots": mcp.MethodRootsList}[key]
		r, err := mcp.NewInputRequest(method, params)
		if err != nil {
			t.Fatal(err)
		}
		if ir.InputRequests == nil {
			ir.InputRequests = mcp.InputRequests{}
		}
		ir.InputRequests[key] = r
	}
	b, err := json.Marshal(&ir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// retryParams decodes the input-response members of a retried request.
func retryParams(t *testing.T, req *jsonrpc.Request) mcp.InputResponseParams {
	t.Helper()
	var p mcp.InputResponseParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInputRequiredIsAnsweredAndRetriedUntilComplete(t *testing.T) {
	var rounds int
	opts := &Options{
		CreateMessage: sampleHello,
		ElicitForm: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"name": stdjson.RawMessage(`"octocat"`)}}, nil
		},
		ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///w"}}}, nil
		},
	}
	s, p := connect(t, opts, map[string]handlerFunc{})
	p.handlers[mcp.MethodToolsCall] = func(context.Context, *jsonrpc.Request) (any, error) {
		rounds++
		switch rounds {
		case 1:
			return inputRequired(t, "state-1", map[string]any{
				"elicit": &mcp.ElicitParams{Message: "who?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}},
				"sample": &mcp.CreateMessageParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{}},
				"roots":  nil,
			}), nil
		case 2:
			return inputRequired(t, "state-2", nil), nil // load shedding: state only
		}
		return stdjson.RawMessage(completeToolResult), nil
	}
	params := &mcp.CallToolParams{Name: "t"}
	res, err := s.CallTool(testCtx(t), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || params.RequestState != "" || params.InputResponses != nil {
		t.Fatalf("result %+v; caller's params %+v", res, params)
	}
	calls := p.requests(mcp.MethodToolsCall)
	if len(calls) != 3 || calls[0].ID == calls[1].ID || calls[1].ID == calls[2].ID || calls[0].ID == calls[2].ID {
		t.Fatalf("tools/call sent %d times with ids %v; want 3 requests with distinct ids", len(calls), calls)
	}
	first := retryParams(t, calls[0])
	if first.RequestState != "" || first.InputResponses != nil {
		t.Errorf("the first request carries retry members: %+v", first)
	}
	second := retryParams(t, calls[1])
	if second.RequestState != "state-1" {
		t.Errorf("the retry echoes requestState %q, want state-1", second.RequestState)
	}
	if keys := slices.Sorted(func(yield func(string) bool) {
		for k := range second.InputResponses {
			yield(k)
		}
	}); !slices.Equal(keys, []string{"elicit", "roots", "sample"}) {
		t.Errorf("inputResponses keys %v, want elicit, roots, sample", keys)
	}
	if el, _ := second.InputResponses.ElicitResult("elicit"); el.Action != mcp.ElicitAccept || string(el.Content["name"]) != `"octocat"` {
		t.Errorf("elicitation answer %+v", el)
	}
	if cm, _ := second.InputResponses.CreateMessageResult("sample"); cm.Model != "m" {
		t.Errorf("sampling answer %+v", cm)
	}
	if lr, _ := second.InputResponses.ListRootsResult("roots"); len(lr.Roots) != 1 || lr.Roots[0].URI != "file:///w" {
		t.Errorf("roots answer %+v", lr)
	}
	if strings.Contains(string(second.InputResponses["elicit"]), "resultType") {
		t.Errorf("an input response carries resultType: %s", second.InputResponses["elicit"])
	}
	third := retryParams(t, calls[2])
	if third.RequestState != "state-2" || third.InputResponses != nil {
		t.Errorf("the load-shedding retry carries %+v, want requestState state-2 and no inputResponses", third)
	}
}

func TestInputRequiredForMissingHandlerFailsTheCall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   *Options
		reqs   map[string]any
		wantIn string
	}{
		{"no sampling handler", &Options{ElicitForm: declineElicit}, map[string]any{"sample": &mcp.CreateMessageParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}}}, "Options.CreateMessage"},
		{"no URL-mode handler", &Options{ElicitForm: declineElicit}, map[string]any{"url": &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "go", URL: "https://example.com"}}, "Options.ElicitURL"},
		{"no roots handler", nil, map[string]any{"roots": nil}, "Options.ListRoots"},
		{"sampling tools undeclared", &Options{CreateMessage: sampleHello}, map[string]any{"sample": &mcp.CreateMessageParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}, Tools: []mcp.Tool{{Name: "x", InputSchema: stdjson.RawMessage(`{"type":"object"}`)}}}}, "Options.SamplingTools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, p := connect(t, tc.opts, map[string]handlerFunc{})
			p.handlers[mcp.MethodPromptsGet] = func(context.Context, *jsonrpc.Request) (any, error) {
				return inputRequired(t, "", tc.reqs), nil
			}
			_, err := s.GetPrompt(testCtx(t), &mcp.GetPromptParams{Name: "p"})
			var ie *InputError
			if !errors.Is(err, ErrNoHandler) || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("GetPrompt error = %v, want an InputError wrapping ErrNoHandler that names %s", err, tc.wantIn)
			}
			if len(p.requests(mcp.MethodPromptsGet)) != 1 {
				t.Error("the request was retried without the input")
			}
		})
	}
}

func TestInputRequiredHandlerErrorFailsTheCall(t *testing.T) {
	boom := errors.New("user closed the dialog")
	s, p := connect(t, &Options{ElicitForm: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) { return nil, boom }}, map[string]handlerFunc{})
	p.handlers[mcp.MethodResourcesRead] = func(context.Context, *jsonrpc.Request) (any, error) {
		return inputRequired(t, "s", map[string]any{"elicit": &mcp.ElicitParams{Message: "?"}}), nil
	}
	_, err := s.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: "x:"})
	var ie *InputError
	if !errors.Is(err, boom) || !errors.As(err, &ie) || ie.Key != "elicit" || ie.Method != mcp.MethodElicitationCreate {
		t.Fatalf("ReadResource error = %v, want an InputError for key elicit wrapping the handler's error", err)
	}
}

func TestInputRequiredRoundsAreBounded(t *testing.T) {
	s, p := connect(t, &Options{MaxInputRounds: 3}, map[string]handlerFunc{})
	p.handlers[mcp.MethodToolsCall] = func(context.Context, *jsonrpc.Request) (any, error) {
		return inputRequired(t, "again", nil), nil
	}
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"}); !errors.Is(err, ErrTooManyInputRounds) {
		t.Fatalf("CallTool error = %v, want ErrTooManyInputRounds", err)
	}
	if n := len(p.requests(mcp.MethodToolsCall)); n != 4 {
		t.Errorf("tools/call sent %d times, want 4 (the first and 3 retries)", n)
	}
}

func TestInputRequiredWithNothingToRetryWithFails(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{mcp.MethodToolsCall: raw(`{"resultType":"input_required"}`)})
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"}); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("CallTool error = %v", err)
	}
}

// serverRequest sends a legacy server-to-client request from the fake server.
func serverRequest(t *testing.T, p *peer, method string, params any) (stdjson.RawMessage, error) {
	t.Helper()
	var res stdjson.RawMessage
	err := p.conn.Call(testCtx(t), method, params, &res)
	return res, err
}

func TestLegacyServerRequests(t *testing.T) {
	opts := &Options{
		ProtocolVersion: mcp.Version20251125,
		ElicitForm: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		},
		ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///r", Name: "r"}}}, nil
		},
	}
	_, p := connect(t, opts, nil)
	if res, err := serverRequest(t, p, mcp.MethodRootsList, nil); err != nil || !strings.Contains(string(res), `"file:///r"`) {
		t.Errorf("roots/list = %s, %v", res, err)
	}
	if res, err := serverRequest(t, p, mcp.MethodElicitationCreate, &mcp.ElicitParams{Message: "?"}); err != nil || string(res) != `{"action":"cancel"}` {
		t.Errorf("elicitation/create = %s, %v", res, err)
	}
	if res, err := serverRequest(t, p, mcp.MethodPing, nil); err != nil || string(res) != `{}` {
		t.Errorf("ping = %s, %v", res, err)
	}
	// Capabilities the client lacks get the codes the spec names.
	if _, err := serverRequest(t, p, mcp.MethodSamplingCreateMessage, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}}); codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("sampling without a handler: %v, want -32601", err)
	}
	if _, err := serverRequest(t, p, mcp.MethodElicitationCreate, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "go", URL: "https://x", ElicitationID: "e"}); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("URL elicitation without a URL handler: %v, want -32602", err)
	}
	if _, err := serverRequest(t, p, mcp.MethodElicitationCreate, stdjson.RawMessage(`{"message":7}`)); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("malformed elicitation params: %v, want -32602", err)
	}
	if _, err := serverRequest(t, p, "tasks/list", nil); codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method: %v, want -32601", err)
	}
}

func TestLegacyServerCanCancelItsRequest(t *testing.T) {
	entered, cancelled := make(chan struct{}), make(chan struct{})
	opts := &Options{
		ProtocolVersion: mcp.Version20250326,
		CreateMessage: func(ctx context.Context, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			close(entered)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		},
	}
	_, p := connect(t, opts, nil)
	ctx, cancel := context.WithCancel(testCtx(t))
	go func() {
		<-entered
		cancel()
	}()
	var res stdjson.RawMessage
	err := p.conn.Call(ctx, mcp.MethodSamplingCreateMessage, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}}, &res)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("server call error = %v", err)
	}
	select { // the fake server sent notifications/cancelled for it
	case <-cancelled:
	case <-time.After(testTimeout):
		t.Fatal("the sampling handler's context was not cancelled")
	}
}

func TestModernSessionAnswersServerRequestsWithMethodNotFound(t *testing.T) {
	_, p := connect(t, &Options{ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
		t.Error("a modern session served a server-to-client request")
		return &mcp.ListRootsResult{}, nil
	}}, nil)
	var e *jsonrpc.Error
	if _, err := serverRequest(t, p, mcp.MethodRootsList, nil); !errors.As(err, &e) || e.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("roots/list on a modern session: %v, want -32601", err)
	}
}

func TestEachRoundDecodesAFreshResult(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{})
	var round int
	p.handlers[mcp.MethodToolsCall] = func(context.Context, *jsonrpc.Request) (any, error) {
		round++
		if round == 1 {
			return stdjson.RawMessage(`{"resultType":"input_required","requestState":"s","_meta":{"com.example/round":1}}`), nil
		}
		return stdjson.RawMessage(`{"content":[]}`), nil // no resultType: complete
	}
	res, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Meta != nil || res.ResultType != "" {
		t.Errorf("the final result kept the first round's members: %+v", res.Result)
	}
}

func TestLegacyServerRequestsOutsideTheVersionAreUnknown(t *testing.T) {
	_, p := connect(t, &Options{ProtocolVersion: mcp.Version20250326, ElicitForm: declineElicit}, nil)
	var e *jsonrpc.Error
	if _, err := serverRequest(t, p, mcp.MethodElicitationCreate, &mcp.ElicitParams{Message: "?"}); !errors.As(err, &e) || e.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("elicitation/create at 2025-03-26: %v, want -32601 (elicitation came in 2025-06-18)", err)
	}
}

func TestLegacyNotificationsReachTheirCallbacks(t *testing.T) {
	completed := make(chan string, 1)
	s, p := connect(t, &Options{
		ProtocolVersion: mcp.Version20251125,
		ListRoots:       func(context.Context) (*mcp.ListRootsResult, error) { return &mcp.ListRootsResult{}, nil },
		OnElicitationComplete: func(_ context.Context, n *mcp.ElicitationCompleteNotificationParams) {
			completed <- n.ElicitationID
		},
	}, nil)
	if err := p.conn.Notify(testCtx(t), mcp.NotificationElicitationComplete, &mcp.ElicitationCompleteNotificationParams{ElicitationID: "e-7"}); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-completed:
		if id != "e-7" {
			t.Errorf("elicitation complete for %q, want e-7", id)
		}
	case <-time.After(testTimeout):
		t.Fatal("OnElicitationComplete was not called")
	}
	if err := s.NotifyRootsListChanged(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if n := p.nextNote(); n.Method != mcp.NotificationInitialized {
		t.Fatalf("first notification %s, want notifications/initialized", n.Method)
	}
	if n := p.nextNote(); n.Method != mcp.NotificationRootsListChanged {
		t.Errorf("the server got %s, want notifications/roots/list_changed", n.Method)
	}
}

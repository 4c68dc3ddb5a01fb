package client

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

const completeToolResult = `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`

func TestModernRequestsCarryMetaWithoutTouchingTheCallersParams(t *testing.T) {
	s, p := connect(t, &Options{CreateMessage: sampleHello, LogLevel: mcp.LevelWarning},
		map[string]handlerFunc{mcp.MethodToolsCall: raw(completeToolResult)})
	params := &mcp.CallToolParams{Name: "t"}
	params.Meta = mcp.Meta{"com.example/trace": stdjson.RawMessage(`"abc"`)}
	if _, err := s.CallTool(testCtx(t), params); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(testCtx(t), params, WithLogLevel(mcp.LevelDebug)); err != nil {
		t.Fatal(err)
	}
	if len(params.Meta) != 1 {
		t.Errorf("the caller's _meta was modified: %v", params.Meta)
	}
	calls := p.requests(mcp.MethodToolsCall)
	for i, wantLevel := range []mcp.LoggingLevel{mcp.LevelWarning, mcp.LevelDebug} {
		m := meta(t, calls[i])
		if v, _ := m.ProtocolVersion(); v != mcp.Version20260728 {
			t.Errorf("call %d: protocolVersion %q", i, v)
		}
		if caps, err := m.ClientCapabilities(); err != nil || caps.Sampling == nil || caps.Elicitation != nil || caps.Roots != nil {
			t.Errorf("call %d: clientCapabilities %+v (%v), want sampling only", i, caps, err)
		}
		if info, _ := m.ClientInfo(); info.Name != "test-client" {
			t.Errorf("call %d: clientInfo %+v", i, info)
		}
		if lvl, _ := m.LogLevel(); lvl != wantLevel {
			t.Errorf("call %d: logLevel %q, want %q", i, lvl, wantLevel)
		}
		if tr, _ := m.String("com.example/trace"); tr != "abc" {
			t.Errorf("call %d: the caller's own _meta member was lost", i)
		}
		if m.Has(mcp.MetaProgressToken) {
			t.Errorf("call %d: a progress token was sent without WithProgress", i)
		}
	}
}

func TestLegacyRequestsCarryNoModernMeta(t *testing.T) {
	s, p := connect(t, &Options{ProtocolVersion: mcp.Version20250618, LogLevel: mcp.LevelDebug},
		map[string]handlerFunc{mcp.MethodToolsCall: raw(`{"content":[]}`)})
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	if got := string(p.requests(mcp.MethodToolsCall)[0].Params); strings.Contains(got, "_meta") {
		t.Errorf("legacy tools/call params %s carry _meta", got)
	}
}

func TestSetLoggingLevel(t *testing.T) {
	t.Run("legacy sends logging/setLevel", func(t *testing.T) {
		s, p := connect(t, &Options{ProtocolVersion: mcp.Version20251125}, map[string]handlerFunc{mcp.MethodLoggingSetLevel: raw(`{}`)})
		if err := s.SetLoggingLevel(testCtx(t), mcp.LevelError); err != nil {
			t.Fatal(err)
		}
		var got mcp.SetLevelParams
		json.Unmarshal(p.requests(mcp.MethodLoggingSetLevel)[0].Params, &got)
		if got.Level != mcp.LevelError {
			t.Errorf("logging/setLevel level = %q", got.Level)
		}
	})
	t.Run("modern sets the per-request level", func(t *testing.T) {
		s, p := connect(t, nil, map[string]handlerFunc{mcp.MethodToolsList: raw(`{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}`)})
		if err := s.SetLoggingLevel(testCtx(t), mcp.LevelNotice); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListTools(testCtx(t), nil); err != nil {
			t.Fatal(err)
		}
		if lvl, _ := meta(t, p.requests(mcp.MethodToolsList)[0]).LogLevel(); lvl != mcp.LevelNotice {
			t.Errorf("logLevel = %q, want notice", lvl)
		}
		if len(p.requests(mcp.MethodLoggingSetLevel)) != 0 {
			t.Error("a modern session sent logging/setLevel")
		}
	})
	t.Run("an unknown level is refused", func(t *testing.T) {
		s, _ := connect(t, nil, nil)
		if err := s.SetLoggingLevel(testCtx(t), "chatty"); err == nil {
			t.Error("SetLoggingLevel(chatty) succeeded")
		}
	})
}

func TestProgressReachesTheCallbackInOrderBeforeTheResult(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{})
	p.handlers[mcp.MethodToolsCall] = func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		tok, err := meta(t, req).ProgressToken()
		if err != nil {
			return nil, err
		}
		for i := 1; i <= 3; i++ {
			p.conn.Notify(ctx, mcp.NotificationProgress, &mcp.ProgressNotificationParams{
				ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprint("step ", i)})
		}
		return stdjson.RawMessage(completeToolResult), nil
	}
	var got []string
	var tokens []string
	for range 2 {
		if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"}, WithProgress(func(n *mcp.ProgressNotificationParams) {
			got = append(got, fmt.Sprintf("%v/%v %s", n.Progress, n.Total, n.Message))
			tokens = append(tokens, n.ProgressToken.Raw())
		})); err != nil {
			t.Fatal(err)
		}
	}
	want := "1/3 step 1,2/3 step 2,3/3 step 3,1/3 step 1,2/3 step 2,3/3 step 3"
	if strings.Join(got, ",") != want {
		t.Errorf("progress seen: %v, want %s", got, want)
	}
	if tokens[0] == tokens[3] {
		t.Errorf("two calls used the same progress token %s", tokens[0])
	}
}

// A call whose context ends returns the context's error at once, tells the
// server with notifications/cancelled naming the request, and the late
// response is dropped without harming the session.
func TestCancelledCallSendsNotificationsCancelled(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: func(context.Context, *jsonrpc.Request) (any, error) {
			entered <- struct{}{}
			<-release
			return stdjson.RawMessage(completeToolResult), nil
		},
	})
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
		errc <- err
	}()
	<-entered
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool error = %v, want context.Canceled", err)
	}
	note := p.nextNote()
	var cp mcp.CancelledNotificationParams
	if err := json.Unmarshal(note.Params, &cp); err != nil || note.Method != mcp.NotificationCancelled {
		t.Fatalf("the server got %s %s (%v), want notifications/cancelled", note.Method, note.Params, err)
	}
	if want := p.requests(mcp.MethodToolsCall)[0].ID; cp.RequestID != want || cp.Reason == "" {
		t.Errorf("notifications/cancelled names %s with reason %q, want %s and a reason", cp.RequestID, cp.Reason, want)
	}
	close(release) // the server answers anyway; the response is dropped
	go func() { <-entered }()
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "next"}); err != nil {
		t.Fatalf("the next call after a cancellation failed: %v", err)
	}
}

func TestResultTypes(t *testing.T) {
	for _, tc := range []struct {
		name, result, wantErr string
	}{
		{"absent means complete", `{"content":[]}`, ""},
		{"unknown type is invalid", `{"resultType":"later","content":[]}`, `resultType "later"`},
		{"task without the extension is invalid", `{"resultType":"task","taskId":"x"}`, `resultType "task"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := connect(t, nil, map[string]handlerFunc{mcp.MethodToolsCall: raw(tc.result)})
			_, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("CallTool error = %v, want %q", err, tc.wantErr)
			}
		})
	}
	t.Run("input_required on a list is refused", func(t *testing.T) {
		s, _ := connect(t, nil, map[string]handlerFunc{mcp.MethodToolsList: raw(`{"resultType":"input_required","requestState":"x"}`)})
		if _, err := s.ListTools(testCtx(t), nil); err == nil || !strings.Contains(err.Error(), "input_required") {
			t.Errorf("ListTools error = %v, want a refusal of input_required", err)
		}
	})
}

func TestMethodsTheVersionLacksFailWithErrNotInVersion(t *testing.T) {
	modern, _ := connect(t, nil, nil)
	legacy, _ := connect(t, &Options{ProtocolVersion: mcp.Version20251125}, nil)
	ctx := testCtx(t)
	for name, err := range map[string]error{
		"modern Ping":                   modern.Ping(ctx),
		"modern Subscribe":              modern.Subscribe(ctx, &mcp.SubscribeParams{URI: "x:"}),
		"modern Unsubscribe":            modern.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "x:"}),
		"modern NotifyRootsListChanged": modern.NotifyRootsListChanged(ctx),
		"legacy Discover":               second(legacy.Discover(ctx)),
		"legacy Listen":                 second(legacy.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})),
	} {
		if !errors.Is(err, ErrNotInVersion) {
			t.Errorf("%s: error = %v, want ErrNotInVersion", name, err)
		}
	}
}

// second returns the error of a two-result call.
func second[T any](_ T, err error) error { return err }

// sampleHello is a sampling handler that answers "hello".
func sampleHello(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: mcp.SamplingContents{&mcp.TextContent{Text: "hello"}}}, nil
}

// notifications/cancelled gives the reason the caller stopped waiting: the
// cause it gave its context, or what ended the context.
func TestCancelledNotificationGivesTheCallersReason(t *testing.T) {
	entered := make(chan struct{}, 2)
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			entered <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	reason := func() string {
		t.Helper()
		note := p.nextNote()
		var cp mcp.CancelledNotificationParams
		if err := json.Unmarshal(note.Params, &cp); err != nil || note.Method != mcp.NotificationCancelled {
			t.Fatalf("the server got %s %s (%v), want notifications/cancelled", note.Method, note.Params, err)
		}
		return cp.Reason
	}

	ctx, cancel := context.WithCancelCause(testCtx(t))
	go func() {
		<-entered
		cancel(errors.New("the user pressed stop"))
	}()
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "slow"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool error = %v, want context.Canceled", err)
	}
	if got := reason(); !strings.Contains(got, "the user pressed stop") {
		t.Errorf("reason = %q, want the cause the caller gave", got)
	}

	for cause, want := range map[error]string{
		context.Canceled:            "the call was cancelled",
		context.DeadlineExceeded:    "the call's deadline passed",
		errors.New("shutting down"): "shutting down",
	} {
		if got := cancelReason(cause); !strings.Contains(got, want) {
			t.Errorf("cancelReason(%v) = %q, want it to contain %q", cause, got, want)
		}
	}
}

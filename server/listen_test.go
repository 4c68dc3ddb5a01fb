package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

func TestListChanged_LegacySessionsThatMayHearIt(t *testing.T) {
	s := fullServer(t, nil)
	ready := open(t, s, mcp.Version20250618, `{}`, nil)
	// A session that has not sent notifications/initialized hears nothing.
	pending := connect(t, s, nil)
	pending.mustCall(mcp.MethodInitialize, `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	s.AddRawTool(&mcp.Tool{Name: "new"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "new"}, nil)
	s.RemoveResources("test://static")
	got := map[string]bool{}
	for range 3 {
		got[ready.nextNote().Method] = true
	}
	for _, m := range []string{mcp.NotificationToolsListChanged, mcp.NotificationPromptsListChanged, mcp.NotificationResourcesListChanged} {
		if !got[m] {
			t.Errorf("the initialized session did not get %s; got %v", m, got)
		}
	}
	pending.notify(mcp.NotificationInitialized, `{}`)
	pending.sync()
	s.RemoveTools("new")
	if n := pending.nextNote(); n.Method != mcp.NotificationToolsListChanged {
		t.Errorf("after initialized, got %s", n.Method)
	}
	if n := ready.nextNote(); n.Method != mcp.NotificationToolsListChanged {
		t.Errorf("got %s", n.Method)
	}
}

func TestListChanged_NotForUndeclaredCapabilities(t *testing.T) {
	s := newTestServer(t, nil)
	s.AddRawTool(&mcp.Tool{Name: "t"}, nil)
	c := open(t, s, mcp.Version20251125, `{}`, nil) // declared tools only
	s.AddPrompt(&mcp.Prompt{Name: "p"}, nil)
	s.AddRawTool(&mcp.Tool{Name: "t2"}, nil)
	if n := c.nextNote(); n.Method != mcp.NotificationToolsListChanged {
		t.Errorf("got %s; prompts were not declared to this session", n.Method)
	}
}

// listenOn opens a subscriptions/listen on a modern connection and returns
// the acknowledgement and the listen call's outcome channel.
func listenOn(t *testing.T, c *testClient, filter string) (*jsonrpc.Request, chan error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.call(mcp.MethodSubscriptionsListen, `{"notifications":`+filter+`}`)
		done <- err
	}()
	ack := c.nextNote()
	if ack.Method != mcp.NotificationSubscriptionsAcknowledged {
		t.Fatalf("the first message is %s %s, want the acknowledgement", ack.Method, ack.Params)
	}
	return ack, done
}

func TestListen_AcknowledgesWhatIsHonouredThenStreams(t *testing.T) {
	s := newTestServer(t, nil)
	s.AddRawTool(&mcp.Tool{Name: "t"}, nil)
	s.AddResource(&mcp.Resource{URI: "test://watched", Name: "w"}, staticText("w"))
	c := open(t, s, mcp.Version20260728, `{}`, nil)
	ack, _ := listenOn(t, c, `{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://watched"]}`)
	// Prompts are not served, so that part of the filter is not honoured.
	if got := member(t, ack.Params, "notifications"); got != `{"toolsListChanged":true,"resourceSubscriptions":["test://watched"]}` {
		t.Errorf("acknowledged %s", got)
	}
	subID := member(t, ack.Params, "_meta", mcp.MetaSubscriptionID)
	if subID == "" {
		t.Fatalf("the acknowledgement has no subscription id: %s", ack.Params)
	}

	s.AddRawTool(&mcp.Tool{Name: "t2"}, nil)
	n := c.nextNote()
	if n.Method != mcp.NotificationToolsListChanged || member(t, n.Params, "_meta", mcp.MetaSubscriptionID) != subID {
		t.Errorf("got %s %s, want tools/list_changed tagged %s", n.Method, n.Params, subID)
	}
	s.ResourceUpdated(context.Background(), "test://other")
	s.ResourceUpdated(context.Background(), "test://watched")
	n = c.nextNote()
	if n.Method != mcp.NotificationResourcesUpdated || member(t, n.Params, "uri") != `"test://watched"` ||
		member(t, n.Params, "_meta", mcp.MetaSubscriptionID) != subID {
		t.Errorf("got %s %s, want resources/updated for test://watched only", n.Method, n.Params)
	}
	s.AddResource(&mcp.Resource{URI: "test://more", Name: "m"}, staticText("m")) // resources list: not asked for
	s.AddRawTool(&mcp.Tool{Name: "t3"}, nil)
	if n := c.nextNote(); n.Method != mcp.NotificationToolsListChanged {
		t.Errorf("got %s; the resources list change was not asked for", n.Method)
	}
}

func TestListen_IDsTagEachStream(t *testing.T) {
	s := fullServer(t, nil)
	c := open(t, s, mcp.Version20260728, `{}`, nil)
	a, _ := listenOn(t, c, `{"toolsListChanged":true}`)
	b, _ := listenOn(t, c, `{"promptsListChanged":true}`)
	idA, idB := member(t, a.Params, "_meta", mcp.MetaSubscriptionID), member(t, b.Params, "_meta", mcp.MetaSubscriptionID)
	if idA == idB {
		t.Fatalf("two streams share the id %s", idA)
	}
	s.AddPrompt(&mcp.Prompt{Name: "p2"}, nil)
	n := c.nextNote()
	if n.Method != mcp.NotificationPromptsListChanged || member(t, n.Params, "_meta", mcp.MetaSubscriptionID) != idB {
		t.Errorf("got %s %s, want prompts/list_changed on stream %s", n.Method, n.Params, idB)
	}
	c.noNote()
}

func TestListen_CancelEndsTheStreamWithoutAResponse(t *testing.T) {
	s := fullServer(t, nil)
	c := open(t, s, mcp.Version20260728, `{}`, nil)
	ack, done := listenOn(t, c, `{"toolsListChanged":true}`)
	c.notify(mcp.NotificationCancelled, `{"requestId":`+member(t, ack.Params, "_meta", mcp.MetaSubscriptionID)+`}`)
	c.sync() // the cancellation has been handled: the stream's context has ended
	s.AddRawTool(&mcp.Tool{Name: "after"}, nil)
	c.mustCall("tools/list", `{}`)
	c.noNote()
	select {
	case err := <-done:
		t.Errorf("the cancelled listen was answered: %v", err)
	default:
	}
}

func TestListen_NotInTheLegacyEra(t *testing.T) {
	c := open(t, fullServer(t, nil), mcp.Version20251125, `{}`, nil)
	if e := c.callErr(mcp.MethodSubscriptionsListen, `{"notifications":{"toolsListChanged":true}}`); e.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("listen in 2025-11-25: %v", e)
	}
}

// recorder collects what ServeRequest sends to notify.
type recorder struct {
	mu   sync.Mutex
	msgs []*jsonrpc.Request
	ch   chan *jsonrpc.Request
	fail error
}

func newRecorder() *recorder { return &recorder{ch: make(chan *jsonrpc.Request, 64)} }

func (rc *recorder) notify(_ context.Context, msg *jsonrpc.Request) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.fail != nil {
		return rc.fail
	}
	rc.msgs = append(rc.msgs, msg)
	rc.ch <- msg
	return nil
}

func (rc *recorder) next(t *testing.T) *jsonrpc.Request {
	t.Helper()
	select {
	case msg := <-rc.ch:
		return msg
	case <-time.After(waitFor):
		t.Fatalf("no notification within %v", waitFor)
		return nil
	}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestServeRequest_ListenStreamsUntilContextEnds(t *testing.T) {
	s := fullServer(t, nil)
	rc := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	respCh := make(chan *jsonrpc.Response, 1)
	go func() {
		respCh <- s.ServeRequest(ctx, &jsonrpc.Request{ID: jsonrpc.StringID("listen-1"), Method: mcp.MethodSubscriptionsListen,
			Params: stdjson.RawMessage(`{` + modernMeta + `,"notifications":{"toolsListChanged":true}}`)}, transport.RequestInfo{}, rc.notify)
	}()
	ack := rc.next(t)
	if ack.Method != mcp.NotificationSubscriptionsAcknowledged || member(t, ack.Params, "_meta", mcp.MetaSubscriptionID) != `"listen-1"` {
		t.Fatalf("first message %s %s", ack.Method, ack.Params)
	}
	s.RemoveTools("echo")
	if n := rc.next(t); n.Method != mcp.NotificationToolsListChanged || member(t, n.Params, "_meta", mcp.MetaSubscriptionID) != `"listen-1"` {
		t.Errorf("got %s %s", n.Method, n.Params)
	}
	cancel()
	resp := <-respCh
	if resp.Error != nil || member(t, resp.Result, "resultType") != `"complete"` ||
		member(t, resp.Result, "_meta", mcp.MetaSubscriptionID) != `"listen-1"` || resp.ID != jsonrpc.StringID("listen-1") {
		t.Errorf("closing result %s %v", resp.Result, resp.Error)
	}
}

func TestServeRequest_RelatedNotificationsComeBeforeTheResponse(t *testing.T) {
	s := progressServer(t, nil)
	rc := newRecorder()
	resp := s.ServeRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(3), Method: "tools/call",
		Params: stdjson.RawMessage(`{"name":"progress","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)},
		transport.RequestInfo{}, rc.notify)
	if resp.Error != nil || !strings.Contains(string(resp.Result), "done") {
		t.Fatalf("response %s %v", resp.Result, resp.Error)
	}
	rc.mu.Lock()
	msgs := rc.msgs
	rc.mu.Unlock()
	if len(msgs) != 3 || member(t, msgs[2].Params, "progress") != "100" || member(t, msgs[0].Params, "progressToken") != `"p"` {
		t.Errorf("notifications before the response: %d", len(msgs))
	}
	// A notify that fails (the client went away) fails the handler's Progress.
	rc.mu.Lock()
	rc.fail = errors.New("stream closed")
	rc.mu.Unlock()
	resp = s.ServeRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(4), Method: "tools/call",
		Params: stdjson.RawMessage(`{"name":"progress","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)},
		transport.RequestInfo{}, rc.notify)
	if !strings.Contains(string(resp.Result), "stream closed") {
		t.Errorf("with a failing notify: %s %v", resp.Result, resp.Error)
	}
}

func TestServeRequest_Errors(t *testing.T) {
	s := toolServer(t)
	serve := func(method, params string, info transport.RequestInfo) *jsonrpc.Response {
		return s.ServeRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.StringID("x"), Method: method, Params: stdjson.RawMessage(params)}, info, nil)
	}
	cases := []struct {
		name, method, params string
		info                 transport.RequestInfo
		code                 int64
	}{
		{"panic", "tools/call", `{"name":"panic",` + modernMeta + `}`, transport.RequestInfo{}, jsonrpc.CodeInternalError},
		{"header mismatch", "tools/list", `{` + modernMeta + `}`, transport.RequestInfo{Version: "2025-11-25"}, mcp.CodeHeaderMismatch},
		{"no meta", "tools/list", `{}`, transport.RequestInfo{}, jsonrpc.CodeInvalidParams},
		{"no params", "tools/list", ``, transport.RequestInfo{}, jsonrpc.CodeInvalidParams},
		{"legacy initialize", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, transport.RequestInfo{}, jsonrpc.CodeInvalidParams},
		{"unknown", "nope", `{` + modernMeta + `}`, transport.RequestInfo{}, jsonrpc.CodeMethodNotFound},
		{"ping", "ping", `{` + modernMeta + `}`, transport.RequestInfo{}, jsonrpc.CodeMethodNotFound},
	}
	for _, tc := range cases {
		resp := serve(tc.method, tc.params, tc.info)
		if resp.Error == nil || resp.Error.Code != tc.code || resp.ID != jsonrpc.StringID("x") {
			t.Errorf("%s: %s %v, want code %d", tc.name, resp.Result, resp.Error, tc.code)
		}
	}
	if resp := serve("tools/list", `{`+modernMeta+`}`, transport.RequestInfo{Version: "2026-07-28"}); resp.Error != nil {
		t.Errorf("a matching header version: %v", resp.Error)
	}
	if resp := s.ServeRequest(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled"}, transport.RequestInfo{}, nil); resp != nil {
		t.Errorf("a notification was answered: %+v", resp)
	}
}

package server

import (
	"context"
	stdjson "encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// clientTaskCaps declare that the client runs elicitations and sampling as
// tasks, lists and cancels them.
const clientTaskCaps = `{"elicitation":{},"sampling":{},"tasks":{"list":{},"cancel":{},"requests":{"elicitation":{"create":{}},"sampling":{"createMessage":{}}}}}`

// hostingClient is a 2025-11-25 client that runs elicitations as tasks:
// one task, "c-1", working until finish is called.
type hostingClient struct {
	t        *testing.T
	mu       sync.Mutex
	status   mcp.TaskStatus
	finished chan struct{}
	got      chan *jsonrpc.Request // every request the server sent
}

func newHostingClient(t *testing.T) *hostingClient {
	return &hostingClient{t: t, status: mcp.TaskWorking, finished: make(chan struct{}), got: make(chan *jsonrpc.Request, 32)}
}

func (h *hostingClient) task() map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return map[string]any{"taskId": "c-1", "status": h.status, "createdAt": "2025-11-25T10:30:00Z",
		"lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": nil, "pollInterval": 3600000}
}

func (h *hostingClient) finish(status mcp.TaskStatus) {
	h.mu.Lock()
	h.status = status
	h.mu.Unlock()
	close(h.finished)
}

func (h *hostingClient) answer(ctx context.Context, method string, params stdjson.RawMessage) (any, error) {
	h.got <- &jsonrpc.Request{Method: method, Params: params}
	switch method {
	case mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage:
		return map[string]any{"task": h.task()}, nil
	case mcp.MethodTasksGet, mcp.MethodTasksCancel:
		if method == mcp.MethodTasksCancel {
			h.finish(mcp.TaskCancelled)
		}
		return h.task(), nil
	case mcp.MethodTasksList:
		return map[string]any{"tasks": []any{h.task()}}, nil
	case mcp.MethodTasksResult:
		select {
		case <-h.finished:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"},
			"_meta": map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": "c-1"}}}, nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no %s here", method)
}

func (h *hostingClient) next() *jsonrpc.Request {
	h.t.Helper()
	select {
	case r := <-h.got:
		return r
	case <-time.After(waitFor):
		h.t.Fatal("the server sent nothing to the client")
		return nil
	}
}

func TestClientTasks_ServerPollsAndFetchesAClientHostedTask(t *testing.T) {
	h := newHostingClient(t)
	c := open(t, newTestServer(t, nil), mcp.Version20251125, clientTaskCaps, h.answer)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	ct, err := c.session.ElicitAsTask(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema}, time.Minute)
	if err != nil {
		t.Fatalf("ElicitAsTask: %v", err)
	}
	req := h.next()
	if member(t, req.Params, "task") != `{"ttl":60000}` || member(t, req.Params, "message") != `"Name?"` {
		t.Errorf("the augmented request %s", req.Params)
	}
	if ct.ID() != "c-1" || ct.Created().Status != mcp.TaskWorking {
		t.Errorf("created %+v", ct.Created())
	}
	waited := make(chan mcp.Task, 1)
	go func() {
		task, err := ct.Wait(ctx)
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		waited <- task
	}()
	if r := h.next(); r.Method != mcp.MethodTasksGet || member(t, r.Params, "taskId") != `"c-1"` {
		t.Errorf("polled with %s %s", r.Method, r.Params)
	}
	// The client's poll interval is an hour: only its status notification
	// can wake the waiter now.
	h.finish(mcp.TaskCompleted)
	c.notify(mcp.NotificationTasksStatus, `{"taskId":"c-1","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":null}`)
	if task := <-waited; task.Status != mcp.TaskCompleted {
		t.Errorf("Wait ended with %s", task.Status)
	}
	res, err := ct.Result(ctx)
	if err != nil || res.Action != mcp.ElicitAccept || field(res, "name") != "Ada" {
		t.Errorf("Result = %+v, %v", res, err)
	}
	tasks, next, err := c.session.ListClientTasks(ctx, "")
	if err != nil || len(tasks) != 1 || next != "" {
		t.Errorf("ListClientTasks = %v %q %v", tasks, next, err)
	}
}

func TestClientTasks_CancelUsesTasksCancel(t *testing.T) {
	h := newHostingClient(t)
	c := open(t, newTestServer(t, nil), mcp.Version20251125, clientTaskCaps, h.answer)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	ct, err := c.session.SampleAsTask(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{
		{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "hi"}}}}}, 0)
	if err != nil {
		t.Fatalf("SampleAsTask: %v", err)
	}
	if req := h.next(); req.Method != mcp.MethodSamplingCreateMessage || member(t, req.Params, "task") != `{}` {
		t.Errorf("the augmented request %s %s", req.Method, req.Params)
	}
	task, err := ct.Cancel(ctx)
	if err != nil || task.Status != mcp.TaskCancelled {
		t.Errorf("Cancel = %+v, %v", task, err)
	}
	if req := h.next(); req.Method != mcp.MethodTasksCancel || member(t, req.Params, "taskId") != `"c-1"` {
		t.Errorf("cancelled with %s %s", req.Method, req.Params)
	}
}

func TestClientTasks_OnlyDeclaredRequestsAreAugmented(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	s := newTestServer(t, nil)
	p := &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema}
	for _, tc := range []struct{ version, caps, why string }{
		{mcp.Version20251125, `{"elicitation":{}}`, "tasks.requests"},
		{mcp.Version20251125, `{"elicitation":{},"tasks":{"requests":{"sampling":{"createMessage":{}}}}}`, "tasks.requests"},
		{mcp.Version20251125, `{"tasks":{"requests":{"elicitation":{"create":{}}}}}`, "elicitation"},
		{mcp.Version20250618, `{"elicitation":{},"tasks":{"requests":{"elicitation":{"create":{}}}}}`, "2025-11-25"},
	} {
		h := newHostingClient(t)
		c := open(t, s, tc.version, tc.caps, h.answer)
		if _, err := c.session.ElicitAsTask(ctx, p, 0); err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s %s: ElicitAsTask error %v, want one about %s", tc.version, tc.caps, err, tc.why)
		}
		select {
		case r := <-h.got:
			t.Errorf("%s %s: the server sent %s anyway", tc.version, tc.caps, r.Method)
		default:
		}
	}
	h := newHostingClient(t)
	c := open(t, s, mcp.Version20251125, `{"elicitation":{},"tasks":{"requests":{"elicitation":{"create":{}}}}}`, h.answer)
	ct, err := c.session.ElicitAsTask(ctx, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ct.Cancel(ctx); err == nil || !strings.Contains(err.Error(), "tasks.cancel") {
		t.Errorf("Cancel without tasks.cancel: %v", err)
	}
	if _, _, err := c.session.ListClientTasks(ctx, ""); err == nil || !strings.Contains(err.Error(), "tasks.list") {
		t.Errorf("ListClientTasks without tasks.list: %v", err)
	}
}

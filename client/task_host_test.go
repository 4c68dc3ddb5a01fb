package client

import (
	"context"
	stdjson "encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// Client-hosted tasks (tasks.md A.9): a 2025-11-25 server sends sampling or
// elicitation as a task and polls the client for it.

// hostRuntime returns a memory task engine closed when the test ends.
func hostRuntime(t *testing.T) *tasks.Runtime {
	t.Helper()
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(),
		tasks.WithPollInterval(20*time.Millisecond), tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// initCapabilities returns the client capabilities of the initialize the
// fake server received.
func initCapabilities(t *testing.T, p *peer) mcp.ClientCapabilities {
	t.Helper()
	var ip mcp.InitializeParams
	if err := json.Unmarshal(p.requests(mcp.MethodInitialize)[0].Params, &ip); err != nil {
		t.Fatal(err)
	}
	return ip.Capabilities
}

// serverCall sends a request from the fake server and decodes the answer.
func serverCall[R any](t *testing.T, p *peer, method string, params any) (*R, error) {
	t.Helper()
	var res R
	if err := p.conn.Call(testCtx(t), method, params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// A.9: a client configured with a task engine declares
// tasks.requests.sampling.createMessage and elicitation.create for the
// handlers it has, with tasks.list and tasks.cancel; without an engine, or
// before 2025-11-25, it declares no tasks.
func TestClientDeclaresTheTasksItHosts(t *testing.T) {
	rt := hostRuntime(t)
	_, p := connect(t, &Options{ProtocolVersion: mcp.Version20251125, Tasks: rt, CreateMessage: sampleHello, ElicitForm: acceptOnly}, nil)
	c := initCapabilities(t, p).Tasks
	if c == nil || c.List == nil || c.Cancel == nil || c.Requests == nil || c.Requests.Sampling == nil || c.Requests.Sampling.CreateMessage == nil ||
		c.Requests.Elicitation == nil || c.Requests.Elicitation.Create == nil {
		t.Errorf("tasks capability = %+v, want list, cancel, sampling.createMessage and elicitation.create", c)
	}
	_, p = connect(t, &Options{ProtocolVersion: mcp.Version20251125, Tasks: hostRuntime(t), CreateMessage: sampleHello}, nil)
	if c := initCapabilities(t, p).Tasks; c == nil || c.Requests.Elicitation != nil {
		t.Errorf("tasks capability = %+v, want sampling only", c)
	}
	for _, o := range []*Options{
		{ProtocolVersion: mcp.Version20251125, CreateMessage: sampleHello},
		{ProtocolVersion: mcp.Version20250618, Tasks: hostRuntime(t), CreateMessage: sampleHello},
	} {
		if _, p := connect(t, o, nil); initCapabilities(t, p).Tasks != nil {
			t.Errorf("%s with engine %v declared tasks", o.ProtocolVersion, o.Tasks != nil)
		}
	}
	s, _ := connect(t, &Options{Tasks: hostRuntime(t), CreateMessage: sampleHello}, nil)
	caps, err := s.settled().meta.ClientCapabilities()
	if err != nil || caps.Tasks != nil {
		t.Errorf("a modern session declares %+v (%v); modern versions have no client-hosted tasks", caps.Tasks, err)
	}
}

// A.7/A.9: a task-augmented sampling/createMessage gets a CreateTaskResult
// at once (a new task is working); the server then polls with tasks/get,
// lists it with tasks/list, and tasks/result returns exactly the sampling
// result with the related-task _meta. The client reports the change with
// notifications/tasks/status; a finished task cannot be cancelled.
func TestTaskAugmentedSamplingIsRunAsATaskThatTheServerPolls(t *testing.T) {
	release := make(chan struct{})
	sample := func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		<-release
		return sampleHello(ctx, p)
	}
	_, p := connect(t, &Options{ProtocolVersion: mcp.Version20251125, Tasks: hostRuntime(t), CreateMessage: sample}, nil)

	params := &mcp.CreateMessageParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{}, Task: &mcp.TaskMetadata{TTL: ms(30_000)}}
	created, err := serverCall[mcp.CreateTaskResult](t, p, mcp.MethodSamplingCreateMessage, params)
	if err != nil {
		t.Fatal(err)
	}
	task := created.Task
	if task.TaskID == "" || task.Status != mcp.TaskWorking || task.TTL == nil || *task.TTL != 30_000 || task.CreatedAt == "" {
		t.Fatalf("created task %+v, want a working task keeping the requested ttl", task)
	}
	got, err := serverCall[mcp.GetTaskResult](t, p, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: task.TaskID})
	if err != nil || got.TaskID != task.TaskID || got.Status != mcp.TaskWorking {
		t.Fatalf("tasks/get = %+v, %v; want the working task", got, err)
	}
	list, err := serverCall[mcp.ListTasksResult](t, p, mcp.MethodTasksList, &mcp.ListTasksParams{})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].TaskID != task.TaskID {
		t.Fatalf("tasks/list = %+v, %v; want the task", list, err)
	}

	close(release)
	res, err := serverCall[mcp.CreateMessageResult](t, p, mcp.MethodTasksResult, &mcp.GetTaskPayloadParams{TaskID: task.TaskID})
	if err != nil || res.Model != "m" {
		t.Fatalf("tasks/result = %+v, %v; want the sampling result", res, err)
	}
	if rt, err := res.Meta.RelatedTask(); err != nil || rt.TaskID != task.TaskID {
		t.Errorf("tasks/result _meta related task %+v (%v), want %s", rt, err, task.TaskID)
	}
	for {
		note := p.nextNote()
		if note.Method != mcp.NotificationTasksStatus {
			continue
		}
		var sn mcp.TaskStatusNotificationParams
		if err := json.Unmarshal(note.Params, &sn); err != nil {
			t.Fatal(err)
		}
		if sn.TaskID != task.TaskID || sn.Meta.Has(mcp.MetaRelatedTask) {
			t.Errorf("notifications/tasks/status %s, want the task without related-task _meta", note.Params)
		}
		if sn.Status == mcp.TaskCompleted {
			break
		}
	}
	_, err = serverCall[mcp.CancelTaskResult](t, p, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: task.TaskID})
	if codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/cancel of a completed task = %v, want -32602", err)
	}
}

// A.7: a valid cancel moves the task to cancelled before the answer and
// stops the work; the cancelled task has no result.
func TestServerCancelsAHostedElicitation(t *testing.T) {
	entered, stopped := make(chan struct{}), make(chan struct{})
	elicit := func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		close(entered)
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}
	_, p := connect(t, &Options{ProtocolVersion: mcp.Version20251125, Tasks: hostRuntime(t), ElicitForm: elicit}, nil)
	q := &mcp.ElicitParams{Message: "wait", RequestedSchema: &mcp.ElicitSchema{Type: "object"}, Task: &mcp.TaskMetadata{}}
	created, err := serverCall[mcp.CreateTaskResult](t, p, mcp.MethodElicitationCreate, q)
	if err != nil {
		t.Fatal(err)
	}
	id := created.Task.TaskID
	select {
	case <-entered:
	case <-time.After(testTimeout):
		t.Fatal("the hosted task never ran the elicitation handler")
	}
	cancelled, err := serverCall[mcp.CancelTaskResult](t, p, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id})
	if err != nil || cancelled.Status != mcp.TaskCancelled {
		t.Fatalf("tasks/cancel = %+v, %v; want the cancelled task", cancelled, err)
	}
	select {
	case <-stopped:
	case <-time.After(testTimeout):
		t.Fatal("the elicitation handler was not stopped")
	}
	if _, err := serverCall[mcp.ElicitResult](t, p, mcp.MethodTasksResult, &mcp.GetTaskPayloadParams{TaskID: id}); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/result of a cancelled task = %v, want -32602", err)
	}
}

// A.8: an unknown task is -32602, and a request the client would refuse is
// refused at once rather than becoming a failed task. A request without
// the task parameter is served as usual.
func TestHostedTaskErrors(t *testing.T) {
	_, p := connect(t, &Options{ProtocolVersion: mcp.Version20251125, Tasks: hostRuntime(t), CreateMessage: sampleHello}, nil)
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
		if _, err := serverCall[stdjson.RawMessage](t, p, m, &mcp.GetTaskParams{TaskID: "nope"}); codeOf(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s of an unknown task = %v, want -32602", m, err)
		}
	}
	if _, err := serverCall[stdjson.RawMessage](t, p, mcp.MethodTasksList, &mcp.ListTasksParams{Cursor: "bogus"}); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/list with a bad cursor = %v, want -32602", err)
	}
	elicit := &mcp.ElicitParams{Message: "?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}, Task: &mcp.TaskMetadata{}}
	if _, err := serverCall[stdjson.RawMessage](t, p, mcp.MethodElicitationCreate, elicit); codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("a task-augmented elicitation without a handler = %v, want -32601 at once", err)
	}
	plain, err := serverCall[mcp.CreateMessageResult](t, p, mcp.MethodSamplingCreateMessage, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{}})
	if err != nil || plain.Model != "m" {
		t.Errorf("plain sampling = %+v, %v; want the result itself", plain, err)
	}
}

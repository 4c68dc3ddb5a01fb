package client

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// taskTime is the creation time of every scripted task.
const taskTime = "2026-07-28T10:30:00Z"

// ms returns a pointer to n milliseconds, as the task wire forms carry them.
func ms(n int64) *int64 { return &n }

// extCreated is an extension CreateTaskResult: a working task, flat.
func extCreated(id string, pollMs int64) *mcp.ExtCreateTaskResult {
	return &mcp.ExtCreateTaskResult{
		Result:  mcp.Result{ResultType: mcp.ResultTask},
		ExtTask: extTask(id, mcp.TaskWorking, pollMs),
	}
}

// extTask is an extension task in status st.
func extTask(id string, st mcp.TaskStatus, pollMs int64) mcp.ExtTask {
	t := mcp.ExtTask{TaskID: id, Status: st, CreatedAt: taskTime, LastUpdatedAt: taskTime, TTLMs: ms(60000)}
	if pollMs > 0 {
		t.PollIntervalMs = ms(pollMs)
	}
	return t
}

// extGot is a tasks/get answer of the extension: the detailed task, with
// resultType complete whatever the task's status.
func extGot(id string, st mcp.TaskStatus, pollMs int64, detail func(*mcp.DetailedTask)) *mcp.ExtGetTaskResult {
	r := &mcp.ExtGetTaskResult{Result: mcp.Result{ResultType: mcp.ResultComplete}}
	r.ExtTask = extTask(id, st, pollMs)
	if detail != nil {
		detail(&r.DetailedTask)
	}
	return r
}

// legacyTask is a 2025-11-25 task in status st.
func legacyTask(id string, st mcp.TaskStatus, pollMs int64) mcp.Task {
	t := mcp.Task{TaskID: id, Status: st, CreatedAt: taskTime, LastUpdatedAt: taskTime, TTL: ms(60000)}
	if pollMs > 0 {
		t.PollInterval = ms(pollMs)
	}
	return t
}

// toolResult is a tools/call result with one text block, as JSON.
func toolResult(text string, isError bool) stdjson.RawMessage {
	b, err := json.Marshal(&mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: text}}, IsError: isError})
	if err != nil {
		panic(err)
	}
	return b
}

// resultText returns the text of a result's single text block.
func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) != 1 {
		t.Fatalf("result %+v, want one content block", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// declaresTasks reports whether a request's _meta client capabilities
// declare the tasks extension.
func declaresTasks(t *testing.T, req *jsonrpc.Request) bool {
	t.Helper()
	caps, err := meta(t, req).ClientCapabilities()
	return err == nil && caps.HasExtension(mcp.ExtensionTasks)
}

// taskIDOf decodes the taskId of a tasks/* request.
func taskIDOf(t *testing.T, req *jsonrpc.Request) string {
	t.Helper()
	var p mcp.GetTaskParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.TaskID
}

// script answers successive requests of one method from a list, repeating
// the last answer, and records when each request arrived.
type script struct {
	mu      sync.Mutex
	answers []handlerFunc
	arrived []time.Time
}

// answer returns the handler that plays the script.
func (sc *script) answer() handlerFunc {
	return func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		sc.mu.Lock()
		n := len(sc.arrived)
		sc.arrived = append(sc.arrived, time.Now())
		h := sc.answers[min(n, len(sc.answers)-1)]
		sc.mu.Unlock()
		return h(ctx, req)
	}
}

// times returns when the requests arrived.
func (sc *script) times() []time.Time {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return append([]time.Time(nil), sc.arrived...)
}

// fixed answers with v.
func fixed(v any) handlerFunc {
	return func(context.Context, *jsonrpc.Request) (any, error) { return v, nil }
}

// failing answers with err.
func failing(err *jsonrpc.Error) handlerFunc {
	return func(context.Context, *jsonrpc.Request) (any, error) { return nil, err }
}

// codeOf returns the code of the *jsonrpc.Error err wraps, or 0.
func codeOf(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

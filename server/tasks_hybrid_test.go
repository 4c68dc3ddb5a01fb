package server

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

func TestHybridTasks_OneRuntimeServesEachEraItsOwnSurface(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	s := taskServer(t, rt, g, nil)
	legacy := connect(t, s, nil)
	legacy.version = mcp.Version20251125
	initialized := legacy.mustCall(mcp.MethodInitialize, `{"protocolVersion":"2025-11-25","capabilities":`+legacyTaskCaps+`,"clientInfo":{"name":"old","version":"1"}}`)
	legacy.notify(mcp.NotificationInitialized, `{}`)
	modern := open(t, s, mcp.Version20260728, extCaps, nil)

	// Each era is told about its own surface only.
	if member(t, initialized, "capabilities", "tasks", "requests", "tools", "call") != "{}" || member(t, initialized, "capabilities", "extensions") != "" {
		t.Errorf("legacy initialize %s", initialized)
	}
	discover := modern.mustCall(mcp.MethodServerDiscover, `{}`)
	if member(t, discover, "capabilities", "tasks") != "" || member(t, discover, "capabilities", "extensions", mcp.ExtensionTasks) != "{}" {
		t.Errorf("modern discover %s", discover)
	}

	// The same tool runs as a legacy task (nested, ttl) and as an
	// extension task (flat, ttlMs) at once.
	lraw := legacy.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{},"task":{}}`)
	mraw := modern.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{}}`)
	lid := member(t, lraw, "task", "taskId")
	mid := member(t, mraw, "taskId")
	if lid == "" || member(t, lraw, "task", "ttl") == "" || hasMember(t, lraw, "resultType") {
		t.Errorf("legacy create %s", lraw)
	}
	if mid == "" || member(t, mraw, "ttlMs") == "" || member(t, mraw, "resultType") != `"task"` {
		t.Errorf("extension create %s", mraw)
	}
	lid, mid = lid[1:len(lid)-1], mid[1:len(mid)-1]

	// The legacy task stays reachable on the legacy wire, in its shapes.
	if got := legacy.mustCall(mcp.MethodTasksGet, `{"taskId":"`+lid+`"}`); member(t, got, "ttl") == "" || hasMember(t, got, "ttlMs") || hasMember(t, got, "resultType") {
		t.Errorf("legacy tasks/get %s", got)
	}
	got, raw := extGet(t, modern, mid)
	if got.Status != mcp.TaskWorking || hasMember(t, raw, "ttl") {
		t.Errorf("extension tasks/get %s", raw)
	}
	// Each era's removed or missing methods stay missing.
	wantCode(t, "modern tasks/result", modern.callErr(mcp.MethodTasksResult, `{"taskId":"`+mid+`"}`), jsonrpc.CodeMethodNotFound)
	wantCode(t, "modern tasks/list", modern.callErr(mcp.MethodTasksList, `{}`), jsonrpc.CodeMethodNotFound)
	wantCode(t, "legacy tasks/update", legacy.callErr(mcp.MethodTasksUpdate, `{"taskId":"`+lid+`","inputResponses":{}}`), jsonrpc.CodeMethodNotFound)
	// Tasks belong to their principal: the session, and the unauthenticated
	// modern requests; neither sees the other's.
	wantCode(t, "legacy get of the modern task", legacy.callErr(mcp.MethodTasksGet, `{"taskId":"`+mid+`"}`), jsonrpc.CodeInvalidParams)
	wantCode(t, "modern get of the legacy task", modern.callErr(mcp.MethodTasksGet, `{"taskId":"`+lid+`"}`), jsonrpc.CodeInvalidParams)

	// A legacy cancel answers the task; an extension cancel acknowledges.
	if s := member(t, legacy.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+lid+`"}`), "status"); s != `"cancelled"` {
		t.Errorf("legacy cancel %s", s)
	}
	if ack := modern.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+mid+`"}`); hasMember(t, ack, "status") {
		t.Errorf("extension cancel %s", ack)
	}
	awaitStatus(t, rt, legacy.session.ID(), lid, tasks.StatusCancelled)
	awaitStatus(t, rt, "", mid, tasks.StatusCancelled)
}

// A handler learns the task it runs in, on both surfaces, and that it runs
// in none when called inline.
func TestRequestTaskIDNamesTheTask(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	AddTool(s, &mcp.Tool{Name: "whoami"}, func(_ context.Context, r *Request, _ struct{}) (string, error) {
		if id, ok := r.TaskID(); ok {
			return "task " + id, nil
		}
		return "no task", nil
	}, optional)

	legacy := open(t, s, mcp.Version20251125, legacyTaskCaps, nil)
	id := createLegacyTask(t, legacy, "whoami", `{}`).TaskID
	if got := text1(t, legacy.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)); got != "task "+id {
		t.Errorf("legacy task %s: the handler said %q", id, got)
	}
	if got := text1(t, legacy.mustCall(mcp.MethodToolsCall, `{"name":"whoami","arguments":{}}`)); got != "no task" {
		t.Errorf("an inline call: the handler said %q", got)
	}

	modern := open(t, s, mcp.Version20260728, extCaps, nil)
	ext := createExtensionTask(t, modern, "whoami", `{}`).TaskID
	awaitStatus(t, rt, "", ext, tasks.StatusCompleted)
	got, _ := extGet(t, modern, ext)
	if text := text1(t, got.TaskResult); text != "task "+ext {
		t.Errorf("extension task %s: the handler said %q", ext, text)
	}
}

package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// TaskConfig says whether and how calls of a tool run as tasks: durable,
// pollable, cancellable executions kept by the server's task runtime
// (Options.Tasks). The tool's handler is the same in every case; inside a
// task its Request reports Progress as the task's statusMessage and asks
// the client (Elicit, Sample, ListRoots, AskAll) through the task.
//
// Who decides differs between the two task surfaces:
//
//   - On a 2025-11-25 session the client asks for a task (the task param of
//     tools/call), and Support is the tool's execution.taskSupport in
//     tools/list: a required tool called without a task, and a forbidden
//     one called with one, get -32601. Older legacy versions have no tasks:
//     every call runs inline.
//   - On a modern request (the io.modelcontextprotocol/tasks extension) the
//     server decides, and only when that request's own _meta declares the
//     extension. A forbidden tool never runs as a task; an optional one may
//     (see Decide and PromoteAfter); a required one always does, and a
//     request that did not declare the extension gets -32021 naming it.
type TaskConfig struct {
	// Support is the tool's task support: mcp.TaskSupportForbidden (or
	// empty, the default), mcp.TaskSupportOptional or
	// mcp.TaskSupportRequired.
	Support mcp.TaskSupport
	// Decide, when set, chooses per call whether an optional tool runs as a
	// task on a modern request that declared the extension: false runs it
	// inline and returns its plain result. It is not consulted for legacy
	// sessions (the client decides there) nor for required tools. nil means
	// every such call becomes a task (subject to PromoteAfter).
	Decide func(ctx context.Context, r *Request, args stdjson.RawMessage) bool
	// PromoteAfter, when positive, runs the tool inline first on a modern
	// request that may or must become a task, for up to this long. If it
	// finishes by then, an optional tool returns its plain result (a
	// required one, a task created already finished); if it asks the
	// client for input first, the question goes back as a multi round-trip
	// InputRequiredResult and the task is created only on a later round,
	// once the questions are answered. If it is still running at the
	// deadline, a task is created for it and the same execution continues
	// inside it, without running again: later questions go to the task's
	// inputRequests. Zero creates the task at once.
	PromoteAfter time.Duration
	// ImmediateResponse, when not empty, is the text a 2025-11-25
	// CreateTaskResult carries in
	// _meta["io.modelcontextprotocol/model-immediate-response"], for the host
	// to hand the model while the task runs.
	ImmediateResponse string
	// Recovery says what becomes of the tool's task when the instance
	// running it is lost: by default it fails; with Rerun set, the tool
	// runs again on another instance, which must have registered the same
	// tool, from the call's recorded arguments.
	Recovery tasks.Policy
}

// Tasks makes calls of the tool run as tasks as c says. The server must
// have a task runtime (Options.Tasks); registering a task-supporting tool
// without one panics, as does an unknown Support level or a negative
// PromoteAfter. A tool registered without this option uses the task support
// of its own Tool.Execution, with the other settings at their defaults.
func Tasks(c TaskConfig) ToolOption {
	return func(t *serverTool) {
		cfg := c
		t.task = &cfg
	}
}

// taskSupport returns the tool's effective task support.
func (t *serverTool) taskSupport() mcp.TaskSupport {
	if t.task == nil || t.task.Support == "" {
		return mcp.TaskSupportForbidden
	}
	return t.task.Support
}

// setUpTasks settles the tool's task configuration at registration: it
// takes the support from Tool.Execution when no Tasks option was given,
// checks the settings, advertises the support in the tool's execution
// member, and registers the tool's task handler with the runtime.
func (s *Server) setUpTasks(st *serverTool) {
	if st.task == nil {
		st.task = &TaskConfig{Support: st.tool.TaskSupport()}
	}
	c := st.task
	name := st.tool.Name
	switch c.Support {
	case "", mcp.TaskSupportForbidden:
		return
	case mcp.TaskSupportOptional, mcp.TaskSupportRequired:
	default:
		panic(fmt.Sprintf("server: tool %q: task support %q is not one of %q, %q and %q",
			name, c.Support, mcp.TaskSupportForbidden, mcp.TaskSupportOptional, mcp.TaskSupportRequired))
	}
	if c.PromoteAfter < 0 {
		panic(fmt.Sprintf("server: tool %q: PromoteAfter is negative (%v)", name, c.PromoteAfter))
	}
	if s.tasks.rt == nil {
		panic(fmt.Sprintf("server: tool %q supports tasks (%q), but the server has no task runtime: set Options.Tasks", name, c.Support))
	}
	st.tool.Execution = &mcp.ToolExecution{TaskSupport: c.Support}
	s.tasks.rt.Register(mcp.MethodToolsCall, name, s.runToolTask, c.Recovery)
}

// taskHost is the server's side of the task runtime: what the two task
// surfaces share beyond the runtime itself.
type taskHost struct {
	rt *tasks.Runtime

	mu sync.Mutex
	// promotions are inline executions on their way into a task, by the
	// token their task's recorded call carries (see promotion).
	promotions map[string]*promotion
	// running are the Requests of the tasks running on this instance, by
	// task ID, so a legacy tasks/cancel can end their notifications before
	// it answers.
	running map[string]*Request
	// delivering holds the input requests (task ID + key) being
	// delivered to a legacy client (by tasks/result or pushInputs), so
	// that two deliveries do not ask the user the same question at once.
	delivering map[deliveryKey]*delivery
	// pushing holds the legacy tasks whose questions a follower delivers
	// to their session without a tasks/result (see Server.pushInputs).
	pushing map[string]bool
}

// deliveryKey names one input request of one task.
type deliveryKey struct{ task, key string }

func (h *taskHost) init(rt *tasks.Runtime) {
	h.rt = rt
	h.promotions = make(map[string]*promotion)
	h.running = make(map[string]*Request)
	h.delivering = make(map[deliveryKey]*delivery)
	h.pushing = make(map[string]bool)
}

// legacyCapability returns the tasks capability a legacy session of
// version v is told about: tasks/list, tasks/cancel and task-augmented
// tools/call, when a runtime is configured and v is 2025-11-25. tasks/list
// is declared because a legacy requestor is always identifiable: by its
// authenticated principal, or else by its session.
func (h *taskHost) legacyCapability(v string) *mcp.ServerTasksCapability {
	if h.rt == nil || !mcp.SupportsTasksV1(v) {
		return nil
	}
	return &mcp.ServerTasksCapability{
		List:     mcp.JSONObject{},
		Cancel:   mcp.JSONObject{},
		Requests: &mcp.ServerTaskRequests{Tools: &mcp.ToolsTaskRequests{Call: mcp.JSONObject{}}},
	}
}

// extensionCapability returns the modern extensions map with the tasks
// extension declared exactly when a runtime is configured. declared is
// the map from Options.Capabilities, which is never modified.
func (h *taskHost) extensionCapability(declared map[string]mcp.JSONObject) map[string]mcp.JSONObject {
	_, has := declared[mcp.ExtensionTasks]
	if has == (h.rt != nil) {
		return declared
	}
	m := maps.Clone(declared)
	if h.rt == nil {
		delete(m, mcp.ExtensionTasks)
		return m
	}
	if m == nil {
		m = make(map[string]mcp.JSONObject, 1)
	}
	m[mcp.ExtensionTasks] = mcp.JSONObject{}
	return m
}

// track records the Request of a task running on this instance until the
// returned function is called.
func (h *taskHost) track(id string, r *Request) (untrack func()) {
	h.mu.Lock()
	h.running[id] = r
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		if h.running[id] == r {
			delete(h.running, id)
		}
		h.mu.Unlock()
	}
}

// stopNotifying ends the notifications of the task's Request on this
// instance, if it runs here, waiting for one being sent.
func (h *taskHost) stopNotifying(id string) {
	h.mu.Lock()
	r := h.running[id]
	h.mu.Unlock()
	if r != nil {
		r.endTask()
	}
}

// delivery is one input request of a task being delivered to a legacy
// client, by a tasks/result or by pushInputs.
type delivery struct {
	done     chan struct{} // closed when the delivery has ended
	answered bool          // the client's answer was recorded; set before done closes
}

// claimDelivery claims the delivery of a task's input request. When another
// delivery of it is under way, it returns that one
// instead (mine is nil): the caller waits for it to end and, if it ended
// unanswered, claims again, so a delivery that failed (its stream ended, or
// the client could not be reached) is taken over, never lost.
func (h *taskHost) claimDelivery(task, key string) (mine, other *delivery) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := deliveryKey{task, key}
	if d := h.delivering[k]; d != nil {
		return nil, d
	}
	d := &delivery{done: make(chan struct{})}
	h.delivering[k] = d
	return d, nil
}

// endDelivery ends a delivery claimed by claimDelivery and forgets it:
// the deliveries waiting on it learn from d whether it was answered, and
// a later one finds the answer recorded in the stored task (stillAsks),
// so the user is not asked again. An answered delivery used to stay
// recorded until a tasks/result or a follower saw its task finish, which
// none may do once the client has gone: it stayed for the life of the
// process.
func (h *taskHost) endDelivery(task, key string, d *delivery, answered bool) {
	h.mu.Lock()
	delete(h.delivering, deliveryKey{task, key})
	d.answered = answered
	h.mu.Unlock()
	close(d.done)
}

// startPushing claims the follower of a legacy task's questions; it
// reports false when one runs already.
func (h *taskHost) startPushing(task string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pushing[task] {
		return false
	}
	h.pushing[task] = true
	return true
}

// stopPushing releases the follower claimed by startPushing.
func (h *taskHost) stopPushing(task string) {
	h.mu.Lock()
	delete(h.pushing, task)
	h.mu.Unlock()
}

// extensionRequired is the -32021 error for a modern request that needs
// the tasks extension but did not declare it in its _meta.
func extensionRequired() *jsonrpc.Error {
	return mcp.MissingCapabilityError(mcp.ClientCapabilities{Extensions: map[string]mcp.JSONObject{mcp.ExtensionTasks: {}}})
}

// taskError converts an error of the task runtime into the JSON-RPC error
// to answer with.
func taskError(err error, id string) error {
	var limit *tasks.LimitError
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return invalidParams("Failed to retrieve task: task %q not found (it does not exist, has expired, or belongs to someone else)", id)
	case errors.Is(err, tasks.ErrInvalidCursor):
		return invalidParams("invalid cursor: it was not returned by tasks/list on this server; list again without a cursor")
	case errors.As(err, &limit):
		return jsonrpc.NewError(jsonrpc.CodeServerBusy, "%s", limit.Error()).
			WithData(map[string]any{"limit": limit.Scope, "max": limit.Limit})
	case errors.Is(err, tasks.ErrClosed):
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "the server's task runtime is shutting down; retry on another instance or later")
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "task runtime error: %v", err)
}

// needTaskID is the -32602 error for a tasks request without a taskId.
func needTaskID(method string) *jsonrpc.Error {
	return invalidParams("%s needs params.taskId, the ID a CreateTaskResult returned", method)
}

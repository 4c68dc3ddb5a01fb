package server

import (
	stdjson "encoding/json"
	"maps"

	"github.com/go-json-experiment/json"
)

// A request can say which task it is about, and middleware can attach
// metadata to a task: what an observer of the task needs later, on
// whichever instance sees it (the OpenTelemetry middleware keeps the trace
// context of the request that created the task, to link the task's span
// and its polls to it). The metadata is kept in the task's record, in the
// params the server records for the task, so it costs no store change.

// relatedTask is the task a Request is about or, before it creates one,
// what it holds for it: the metadata middleware recorded, and the last
// progress reported, which becomes the task's status. One pointer in
// Request, nil for most requests, keeps a Request in the 448-byte size
// class (BenchmarkToolsCall B/op).
type relatedTask struct {
	id     string
	meta   map[string]string
	params stdjson.RawMessage // the record's params, read into meta when asked
	held   string             // the last progress reported before the task existed, for it
}

// relatedLocked returns r.related, made if need be; r.mu is held.
func (r *Request) relatedLocked() *relatedTask {
	if r.related == nil {
		r.related = &relatedTask{}
	}
	return r.related
}

// SetTaskMeta records key and value with the task this request creates,
// if it creates one (a tools/call that becomes a task): middleware calls
// it before calling next. Every Request about the task later, on any
// instance, reads it with TaskMeta, and a tasks.TaskObserver reads it from
// the change's params with RecordedTaskMeta.
func (r *Request) SetTaskMeta(key, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.relatedLocked()
	if rt.meta == nil {
		rt.meta = make(map[string]string, 2)
	}
	rt.meta[key] = value
}

// RelatedTask returns the ID of the task the request is about, once the
// handler has found it: the task a tools/call created, the task of
// tasks/get, tasks/result or tasks/cancel, or the task a run of a tool
// serves (the Request of a task's handler). It is "" for any other
// request. Middleware reads it after calling next.
func (r *Request) RelatedTask() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.related == nil {
		return ""
	}
	return r.related.id
}

// TaskMeta returns the metadata of the task RelatedTask names (see
// SetTaskMeta), nil when it has none. It must not be modified.
func (r *Request) TaskMeta() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.related
	if rt == nil {
		return nil
	}
	if rt.params != nil {
		rt.meta, rt.params = RecordedTaskMeta(rt.params), nil
	}
	return rt.meta
}

// RecordedTaskMeta returns the task metadata (see Request.SetTaskMeta)
// kept in the params of a task this server created, as a
// tasks.TaskChange or tasks.Task carries them; nil when there is none.
func RecordedTaskMeta(params stdjson.RawMessage) map[string]string {
	var call struct {
		Meta map[string]string `json:"meta"`
	}
	if json.Unmarshal(params, &call) != nil {
		return nil
	}
	return call.Meta
}

// aboutTask notes the task the request turned out to be about: t's ID,
// and its params, from which TaskMeta reads its metadata when asked.
func (r *Request) aboutTask(id string, params stdjson.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.relatedLocked()
	rt.id, rt.params = id, params
}

// createdTask notes the task the request created; its metadata is what
// SetTaskMeta recorded.
func (r *Request) createdTask(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.relatedLocked().id = id
}

// recordedTaskMeta returns a copy of what SetTaskMeta recorded, for the
// task being created.
func (r *Request) recordedTaskMeta() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.related == nil {
		return nil
	}
	return maps.Clone(r.related.meta)
}

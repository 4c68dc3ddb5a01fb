package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// inputKeyPrefix starts every input request key: "input-1", "input-2", …
const inputKeyPrefix = "input-"

// Exec is a running handler's handle on its task: what the task is, a
// blocking Ask for input, and Progress reports.
type Exec struct {
	rn        *run
	principal string
	method    string
	name      string
	params    json.RawMessage
	runs      int
	local     any

	askMu   sync.Mutex      // serialises key assignment
	claimed map[string]bool // keys this run has asked or replayed; made on first use

	mu      sync.Mutex
	waiters map[string]chan json.RawMessage // made on first use

	// progress is part of the Exec, and the maps above are made when a
	// handler first asks: most handlers never ask, and the three were 3
	// of a task life's allocations (BenchmarkTaskLifeCost).
	progress progress
}

// init sets up the Exec of run rn of the task rec.
func (x *Exec) init(rn *run, rec *Record) {
	x.rn = rn
	x.principal, x.method, x.name = rec.Principal, rec.Method, rec.Name
	x.params, x.runs = rec.Params, rec.Runs
	x.progress = progress{rn: rn, interval: rn.rt.cfg.progressInterval}
}

// TaskID returns the task's ID.
func (x *Exec) TaskID() string { return x.rn.id }

// Principal returns who the task belongs to.
func (x *Exec) Principal() string { return x.principal }

// Method returns the request method the task runs.
func (x *Exec) Method() string { return x.method }

// Name returns the handler name (for tools/call, the tool).
func (x *Exec) Name() string { return x.name }

// Params returns a copy of the original request's params.
func (x *Exec) Params() json.RawMessage { return cloneRaw(x.params) }

// Local returns the StartRequest's Local value on the run Start began,
// and nil on a run after a lost instance.
func (x *Exec) Local() any { return x.local }

// Run returns which run of the task this is: 1 for the first, more after
// the task was recovered from a lost instance.
func (x *Exec) Run() int { return x.runs }

// Ask sends an input request (a JSON object {"method": …, "params": …},
// such as an elicitation/create) to the task's client and blocks until it is
// answered, on any instance, then returns the response. Meanwhile the task
// is input_required with the request outstanding; several Asks may be
// outstanding at once.
//
// Each request gets a key unique for the task's life. When the task is run
// again after its worker was lost, a request equal to one already recorded
// reuses its key, in order, so a deterministic handler gets the recorded
// answers back at once instead of asking again.
//
// If ctx ends first, Ask returns the context's cause; the request stays
// outstanding and an answer to it is still recorded.
func (x *Exec) Ask(ctx context.Context, request json.RawMessage) (json.RawMessage, error) {
	canon, err := canonical(request)
	if err != nil {
		return nil, err
	}
	x.askMu.Lock()
	key, resp, wait, err := x.claim(ctx, request, canon)
	x.askMu.Unlock()
	if err != nil || resp != nil {
		return resp, err
	}
	select {
	case resp := <-wait:
		return resp, nil
	case <-ctx.Done():
		x.dropWaiter(key)
		return nil, context.Cause(ctx)
	case <-x.rn.ctx.Done():
		x.dropWaiter(key)
		return nil, context.Cause(x.rn.ctx)
	}
}

// claim finds or makes the input request for this Ask: a recorded answer to
// replay, a recorded request to wait on, or a new request to record. It
// returns the key and either the replayed response or a channel the answer
// will arrive on.
func (x *Exec) claim(ctx context.Context, request json.RawMessage, canon jsontext.Value) (string, json.RawMessage, chan json.RawMessage, error) {
	rt := x.rn.rt
	rec, err := rt.store.Get(ctx, x.rn.id)
	if err != nil {
		return "", nil, nil, fmt.Errorf("tasks: asking for input: %w", err)
	}
	if x.claimed == nil {
		x.claimed = make(map[string]bool)
	}
	for _, in := range rec.Inputs {
		if x.claimed[in.Key] {
			continue
		}
		if c, err := canonical(in.Request); err != nil || !bytes.Equal(c, canon) {
			continue
		}
		x.claimed[in.Key] = true
		if in.Answered() {
			return in.Key, in.Response, nil, nil
		}
		wait := x.addWaiter(in.Key)
		// The answer may have landed after the read above: look once more.
		if rec, err := rt.store.Get(ctx, x.rn.id); err == nil {
			x.deliver(rec)
		}
		return in.Key, nil, wait, nil
	}

	key := nextInputKey(rec.Inputs)
	x.claimed[key] = true
	wait := x.addWaiter(key)
	var was previous
	rec, err = rt.mutate(ctx, x.rn.id, SignalStatus, func(rec *Record) error {
		if rec.Status.Terminal() {
			return &TerminalError{TaskID: rec.ID, Status: rec.Status}
		}
		if rec.Owner != rt.cfg.instanceID {
			return ErrLeaseLost
		}
		was = previousOf(rec)
		rec.Inputs = append(rec.Inputs, Input{Key: key, Request: cloneRaw(request)})
		rec.Status = StatusInputRequired
		rec.UpdatedAt = rt.now()
		return nil
	})
	if err != nil {
		x.dropWaiter(key)
		if x.rn.ctx.Err() != nil {
			return "", nil, nil, context.Cause(x.rn.ctx) // the task was stopped meanwhile
		}
		return "", nil, nil, fmt.Errorf("tasks: recording an input request: %w", err)
	}
	rt.audit(ctx, "input requested", rec, slog.String("key", key))
	if was.status != StatusInputRequired {
		rt.transition(rec, was, StatusInputRequired)
	}
	x.rn.changed(rec)
	rt.publish(ctx, x.rn.id, SignalStatus)
	return key, nil, wait, nil
}

// addWaiter registers a channel for the answer to key.
func (x *Exec) addWaiter(key string) chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	x.mu.Lock()
	if x.waiters == nil {
		x.waiters = make(map[string]chan json.RawMessage)
	}
	x.waiters[key] = ch
	x.mu.Unlock()
	return ch
}

// dropWaiter forgets the channel for key.
func (x *Exec) dropWaiter(key string) {
	x.mu.Lock()
	delete(x.waiters, key)
	x.mu.Unlock()
}

// deliver hands every answer in the record that an Ask waits for to it.
func (x *Exec) deliver(rec *Record) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.waiters) == 0 {
		return
	}
	for _, in := range rec.Inputs {
		if ch, ok := x.waiters[in.Key]; ok && in.Answered() {
			ch <- cloneRaw(in.Response)
			delete(x.waiters, in.Key)
		}
	}
}

// Progress reports how the work is going; the message becomes the task's
// statusMessage. Reports are throttled to one write per progress interval:
// a report inside the interval replaces any report still waiting, and the
// waiting one is written when the interval is over, unless the task has
// finished by then. Progress never blocks.
func (x *Exec) Progress(message string) { x.progress.report(message) }

// nextInputKey returns the key after every recorded one.
func nextInputKey(inputs []Input) string {
	n := 0
	for _, in := range inputs {
		if s, ok := strings.CutPrefix(in.Key, inputKeyPrefix); ok {
			if i, err := strconv.Atoi(s); err == nil && i > n {
				n = i
			}
		}
	}
	return inputKeyPrefix + strconv.Itoa(n+1)
}

// canonical returns the RFC 8785 form of an input request, which must be a
// JSON object, for comparing requests. The trace context in the params'
// _meta (the traceparent, tracestate and baggage keys SEP-414 reserves) is
// left out: it tells how the question was asked, not what, so a re-run
// that asks the same question from another trace finds it recorded.
func canonical(request json.RawMessage) (jsontext.Value, error) {
	if !isJSONObject(request) {
		return nil, fmt.Errorf("tasks: an input request must be a JSON object with the request's method and params")
	}
	v := jsontext.Value(bytes.Clone(request))
	if bytes.Contains(v, []byte(`"_meta"`)) {
		stripped, err := withoutTraceContext(v)
		if err != nil {
			return nil, fmt.Errorf("tasks: an input request cannot be canonicalised: %w", err)
		}
		v = stripped
	}
	if err := v.Canonicalize(); err != nil {
		return nil, fmt.Errorf("tasks: an input request cannot be canonicalised: %w", err)
	}
	return v, nil
}

// traceContextKeys are the _meta keys of a W3C trace context (SEP-414).
var traceContextKeys = []string{"traceparent", "tracestate", "baggage"}

// withoutTraceContext returns the input request without the trace context
// keys of its params' _meta (and without a _meta they leave empty).
func withoutTraceContext(request jsontext.Value) (jsontext.Value, error) {
	var req struct {
		Method string                    `json:"method"`
		Params map[string]jsontext.Value `json:"params,omitzero"`
		Rest   jsontext.Value            `json:",unknown"`
	}
	if err := jsonv2.Unmarshal(request, &req); err != nil {
		return nil, err
	}
	raw, ok := req.Params["_meta"]
	if !ok {
		return request, nil
	}
	var meta map[string]jsontext.Value
	err := jsonv2.Unmarshal(raw, &meta)
	if err != nil {
		return nil, err
	}
	for _, k := range traceContextKeys {
		delete(meta, k)
	}
	if len(meta) == 0 {
		delete(req.Params, "_meta")
		return jsonv2.Marshal(req)
	}
	if req.Params["_meta"], err = jsonv2.Marshal(meta); err != nil {
		return nil, err
	}
	return jsonv2.Marshal(req)
}

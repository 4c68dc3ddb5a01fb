package tasks

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
)

// maxCASAttempts bounds the read-modify-write retries of one change.
const maxCASAttempts = 64

// sweepBatch is how many expired tasks or lapsed leases one store call lists.
const sweepBatch = 100

// errUnchanged tells mutate's caller that the change turned out to be
// unnecessary; nothing was written.
var errUnchanged = errors.New("tasks: nothing to change")

// Runtime is the task engine on one instance: it creates tasks, runs their
// handlers, answers for them, and together with the Runtimes of other
// instances sharing its Store and Bus, keeps every task moving to an end.
// Create one with New and stop it with Close.
type Runtime struct {
	cfg   config
	store Store
	bus   Bus
	// signals are the store's writes that carry their own signals to the
	// other instances, or nil when the store's writes cannot reach bus.
	signals *signalledWrites
	log     *slog.Logger
	cache   *recordCache
	pacer   pacer

	mu       sync.Mutex
	handlers map[handlerKey]handlerEntry
	runs     map[string]*run
	closed   bool
	runsWG   sync.WaitGroup
	closing  chan struct{} // closed when Close begins
	problems problemLog

	progressQueue   *progressQueue
	stopProgress    context.CancelFunc
	progressWriters sync.WaitGroup

	stopSweeps context.CancelFunc
	sweepsDone chan struct{}
	stopBeats  context.CancelFunc
	beatsDone  chan struct{}
}

type handlerKey struct{ method, name string }

type handlerEntry struct {
	fn     HandlerFunc
	policy Policy
}

// New returns a Runtime on the store and bus and starts its background work:
// the heartbeat that renews this instance's leases and the sweeps for
// expired tasks and lapsed leases. The caller keeps ownership of store and
// bus and closes them after the Runtime.
func New(store Store, bus Bus, opts ...Option) (*Runtime, error) {
	if store == nil || bus == nil {
		return nil, fmt.Errorf("tasks: New needs a Store and a Bus (NewMemoryStore and NewMemoryBus for one process)")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if _, mem := store.(*MemoryStore); mem && !cfg.recordCacheSet {
		// A MemoryStore read is the copy the cache would make, without the
		// cache's subscription: 57 allocations a life instead of 66
		// (BenchmarkTaskLife).
		cfg.recordCache = 0
	}
	signals := signalling(store, bus, cfg.observer)
	if _, can := store.(SignallingStore); can && signals == nil {
		cfg.logger.Info("tasks: the store's writes cannot carry their signals to this Bus, so each write and its signal are two round trips; "+
			"to make them one, open the Bus with the store's driver, on the same client and key prefix or schema",
			slog.String("store", fmt.Sprintf("%T", store)), slog.String("bus", fmt.Sprintf("%T", bus)))
	}
	if _, nop := cfg.observer.(NopObserver); !nop {
		observed := observedStore{store: store, obs: cfg.observer}
		if shared := sharing(store); shared != nil {
			store = observedSharingStore{observedStore: observed, shared: shared}
		} else {
			store = observed
		}
	}
	r := &Runtime{
		cfg:        cfg,
		store:      store,
		bus:        bus,
		signals:    signals,
		log:        cfg.logger,
		handlers:   make(map[handlerKey]handlerEntry),
		runs:       make(map[string]*run),
		closing:    make(chan struct{}),
		sweepsDone: make(chan struct{}),
		beatsDone:  make(chan struct{}),

		progressQueue: newProgressQueue(),
	}
	r.cache = newRecordCache(store, bus, cfg.recordCache)
	r.pacer.polls = make(map[string]pollMark)
	sweepCtx, stopSweeps := context.WithCancel(context.Background())
	beatCtx, stopBeats := context.WithCancel(context.Background())
	r.stopSweeps, r.stopBeats = stopSweeps, stopBeats
	go r.sweepLoop(sweepCtx)
	go r.heartbeatLoop(beatCtx)
	progressCtx, stopProgress := context.WithCancel(context.Background())
	r.stopProgress = stopProgress
	r.progressWriters.Add(progressWriters)
	for range progressWriters {
		go r.writeProgress(progressCtx, &r.progressWriters)
	}
	return r, nil
}

// InstanceID returns the name this instance records as the owner of the
// tasks it runs.
func (r *Runtime) InstanceID() string { return r.cfg.instanceID }

// Register sets the handler for tasks of a request method (such as
// "tools/call") and name (for tools/call, the tool name; "" when the method
// has no names), replacing any earlier one. Register it on every instance
// that may run or re-run such tasks. The policy is recorded on each task
// when it is created. A nil fn is a programming error and panics.
func (r *Runtime) Register(method, name string, fn HandlerFunc, policy Policy) {
	if fn == nil {
		panic(fmt.Sprintf("tasks: Register(%q, %q) with a nil handler", method, name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers[handlerKey{method, name}] = handlerEntry{fn: fn, policy: policy}
}

// handler returns the registered handler for method and name.
func (r *Runtime) handler(method, name string) (handlerEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.handlers[handlerKey{method, name}]
	return h, ok
}

// StartRequest describes a task to start.
type StartRequest struct {
	// Principal is who the task belongs to (an authenticated subject, or a
	// session when there is none). Only the same principal sees the task.
	Principal string
	// Method and Name select the registered handler.
	Method string
	Name   string
	// Params are the original request's params, handed to the handler and
	// kept for a re-run. Start checks that they are valid JSON and keeps a
	// copy, unless ParamsHandedOver is set.
	Params json.RawMessage
	// ParamsHandedOver says Params are JSON the caller encoded itself and
	// hands over: Start keeps them as they are, neither checked nor
	// copied, and the caller must not change them afterwards. The server's
	// recorded calls are handed over (checking one took a twentieth of an
	// extension task's life over stdio at 1 in flight).
	ParamsHandedOver bool
	// TTL is the retention the client asked for; zero asks for the default.
	// It is clamped to the maximum.
	TTL time.Duration
	// Follow, when set, is called with the task's new state each time this
	// instance writes or sees a change of it while running it (the state
	// Start returns is not reported), in order, on the goroutine making the
	// change: it must return quickly and must not call the Runtime. A
	// finished state is the last report; if this instance stops running
	// the task before it finishes (its lease was lost, or the Runtime
	// closed), a last call has stopped set and the last state reported, and
	// the task can be followed further with Watch. Following this way costs
	// no goroutine and no store read.
	Follow func(t Task, stopped bool)
	// Local, when set, is handed to the task's first run on this instance
	// (Exec.Local): what the caller already holds of Params, decoded, so the
	// handler need not decode them again. A run after a lost instance gets
	// nil and reads Params.
	Local any
	// Launch, when set, is offered the task's first run before the
	// executor is, and reports whether it takes it: then it calls run once,
	// soon, on a goroutine of its choosing. It is offered only on the
	// default executor (a Runtime given WithExecutor keeps every run on
	// that). The server's Launch takes the run onto the goroutine that
	// served the creating request, once it has answered
	// (jsonrpc.AfterResponse), which saves a quick task's life a hand-off
	// to another goroutine. On a store that waits, the outcome's write
	// then waits on that goroutine too. Over stdio that may be the
	// connection's reading goroutine, when the client makes one request
	// at a time (else the creation's write passed reading on,
	// jsonrpc.MayWait): the client's next request is read once the run
	// ends, or by another goroutine once it has taken a millisecond.
	Launch func(run func()) bool
}

// Start creates a working task, durably and visibly to every instance, then
// runs its handler (on the executor, or where StartRequest.Launch takes
// it) and returns the task as created. Over a concurrency limit it returns
// a *LimitError and creates nothing.
func (r *Runtime) Start(ctx context.Context, req StartRequest) (Task, error) {
	h, ok := r.handler(req.Method, req.Name)
	if !ok {
		return Task{}, fmt.Errorf("%w: method %q, name %q", ErrNoHandler, req.Method, req.Name)
	}
	params := req.Params
	if !req.ParamsHandedOver {
		if params != nil && !jsontext.Value(params).IsValid() {
			return Task{}, fmt.Errorf("tasks: the params of %s %q are not valid JSON", req.Method, req.Name)
		}
		params = cloneRaw(params)
	}
	now := r.now()
	rec := &Record{
		ID:             rand.Text(),
		Principal:      req.Principal,
		Method:         req.Method,
		Name:           req.Name,
		Params:         params,
		Policy:         h.policy,
		Status:         StatusWorking,
		CreatedAt:      now,
		UpdatedAt:      now,
		PollInterval:   r.cfg.pollInterval,
		Owner:          r.cfg.instanceID,
		LeaseExpiresAt: now.Add(r.cfg.lease),
		Runs:           1,
	}
	if ttl := r.ttl(req.TTL); ttl > 0 {
		rec.ExpiresAt = now.Add(ttl)
	}
	rn, err := r.newRun(ctx, rec, h.fn)
	if err != nil {
		return Task{}, err
	}
	rn.follow, rn.exec.local = req.Follow, req.Local
	mark := r.cache.follow(ctx, rec.ID)
	if err := r.create(ctx, rec, SignalCreated); err != nil {
		rn.abandon()
		if errors.Is(err, ErrLimit) {
			return Task{}, err
		}
		return Task{}, fmt.Errorf("tasks: creating the task: %w", err)
	}
	r.cache.wrote(rec, mark)
	r.transition(rec, previous{}, StatusWorking)
	r.audit(ctx, "created", rec, slog.Duration("ttl", r.ttl(req.TTL)))
	// rec is this call's own, or the store's and never changed (see
	// sharedRecords): its view needs no copy.
	created := r.view(rec)
	rn.followed, rn.lastFollowed = rec.Version, created
	r.publish(ctx, rec.ID, SignalCreated) // for the Feeds of every instance
	if r.cfg.pollPacing > 0 {
		// The caller answers with the created task: a poll right after it
		// is paced as a poll after an answer is.
		r.pacer.answered(rec.ID, rec, r.cfg.pollPacing)
	}
	offer := req.Launch
	if _, ours := r.cfg.executor.(*reusingExecutor); !ours {
		offer = nil // an executor of the caller's keeps its bound on every run
	}
	rn.launch(rec.LeaseExpiresAt, offer)
	return created, nil
}

// create stores the new record rec, which is the caller's and is not
// changed from here on: a store with sharedRecords keeps it as it is. On a
// store whose writes carry signals, the write sends the signal kind, which
// the caller publishes after it (see publish).
func (r *Runtime) create(ctx context.Context, rec *Record, signal SignalKind) error {
	if r.cache.shared != nil {
		return r.cache.shared.createShared(ctx, rec, r.cfg.quota)
	}
	r.storeWaits(ctx)
	if r.signals != nil {
		return r.signals.create(ctx, rec, r.cfg.quota, signal)
	}
	return r.store.Create(ctx, rec, r.cfg.quota)
}

// storeWaits tells the connection of the request ctx belongs to, if any,
// that a call to a durable store comes, which waits for a round trip or
// a disk sync: the connection reads its next requests meanwhile if any
// have come, or once the wait lasts (jsonrpc.MayWait).
func (r *Runtime) storeWaits(ctx context.Context) {
	if !r.storeNeverWaits() {
		jsonrpc.MayWait(ctx)
	}
}

// storeNeverWaits reports whether the store answers without waiting: one
// whose records are shared (the memory store).
func (r *Runtime) storeNeverWaits() bool { return r.cache.shared != nil }

// ttl applies the default and the maximum to a requested TTL.
func (r *Runtime) ttl(requested time.Duration) time.Duration {
	ttl := requested
	if ttl <= 0 {
		ttl = r.cfg.defaultTTL
	}
	if r.cfg.maxTTL > 0 && (ttl == 0 || ttl > r.cfg.maxTTL) {
		ttl = r.cfg.maxTTL
	}
	return ttl
}

// Get returns the principal's task. A missing, expired or foreign task gives
// ErrNotFound.
func (r *Runtime) Get(ctx context.Context, principal, id string) (Task, error) {
	rec, err := r.load(ctx, principal, id, false)
	if err != nil {
		return Task{}, err
	}
	return r.view(rec), nil
}

// List returns one page of the principal's tasks and the cursor of the next
// page ("" when there is none). A cursor List did not return gives
// ErrInvalidCursor.
func (r *Runtime) List(ctx context.Context, principal, cursor string) ([]Task, string, error) {
	r.storeWaits(ctx)
	recs, next, err := r.store.List(ctx, principal, cursor, r.cfg.pageSize)
	if err != nil {
		if errors.Is(err, ErrInvalidCursor) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("tasks: listing tasks: %w", err)
	}
	now := r.now()
	tasks := make([]Task, 0, len(recs))
	for _, rec := range recs {
		if visible(rec, principal, now) {
			tasks = append(tasks, r.view(rec))
		}
	}
	return tasks, next, nil
}

// Cancel moves the principal's unfinished task to cancelled before it
// returns, and stops its handler wherever it runs; a result the handler
// produces afterwards is discarded. Cancelling a finished task returns a
// *TerminalError naming its status.
func (r *Runtime) Cancel(ctx context.Context, principal, id string) (Task, error) {
	var was previous
	rec, err := r.mutate(ctx, id, SignalCancel, func(rec *Record) error {
		if !visible(rec, principal, r.now()) {
			return ErrNotFound
		}
		if rec.Status.Terminal() {
			return &TerminalError{TaskID: rec.ID, Status: rec.Status}
		}
		was = previousOf(rec)
		rec.Status = StatusCancelled
		rec.StatusMessage = "The task was cancelled by request."
		rec.UpdatedAt = r.now()
		return nil
	})
	if err != nil {
		return Task{}, err
	}
	r.audit(ctx, "cancelled", rec)
	r.transition(rec, was, StatusCancelled)
	if rn := r.localRun(id); rn != nil {
		rn.changed(rec)
		rn.stop(ErrCancelled)
	}
	r.publish(ctx, id, SignalCancel)
	return r.view(rec), nil
}

// Answer records responses to the principal's task's outstanding input
// requests, by key, and wakes the handler waiting for them on whichever
// instance runs it. Keys that are unknown or already answered are ignored,
// as is everything sent to a finished task. The task returns to working
// once no request is outstanding.
func (r *Runtime) Answer(ctx context.Context, principal, id string, responses map[string]json.RawMessage) error {
	for key, resp := range responses {
		if !jsontext.Value(resp).IsValid() {
			return fmt.Errorf("tasks: the response to input request %q is not valid JSON", key)
		}
	}
	var was previous
	var answered []string
	rec, err := r.mutate(ctx, id, SignalInput, func(rec *Record) error {
		if !visible(rec, principal, r.now()) {
			return ErrNotFound
		}
		if rec.Status.Terminal() {
			return errUnchanged
		}
		answered = answered[:0]
		for i := range rec.Inputs {
			in := &rec.Inputs[i]
			if resp, ok := responses[in.Key]; ok && !in.Answered() {
				in.Response = cloneRaw(resp)
				answered = append(answered, in.Key)
			}
		}
		if len(answered) == 0 {
			return errUnchanged
		}
		was = previousOf(rec)
		if rec.Status == StatusInputRequired && !rec.Outstanding() {
			rec.Status = StatusWorking
		}
		rec.UpdatedAt = r.now()
		return nil
	})
	switch {
	case errors.Is(err, errUnchanged), errors.Is(err, ErrTerminal):
		return nil
	case err != nil:
		return err
	}
	r.audit(ctx, "input answered", rec, slog.Any("keys", answered))
	if was.status != rec.Status {
		r.transition(rec, was, rec.Status)
	}
	r.publish(ctx, id, SignalInput)
	if rn := r.localRun(id); rn != nil {
		rn.changed(rec)
		rn.exec.deliver(rec)
	}
	return nil
}

// CloseReserve is how long before its context's deadline Close stops
// waiting for running handlers, to stop them and release their leases in
// time (half the time left, if that is less).
const CloseReserve = time.Second

// releaseWorkers is how many lease releases Close has in flight at once.
const releaseWorkers = 16

// Close stops the background sweeps, refuses new tasks, and waits for the
// running handlers to finish, renewing their leases meanwhile. If ctx ends
// first (or CloseReserve before its deadline), it stops the remaining
// handlers and releases as many of their leases as it can before the
// deadline, so another instance recovers those tasks at once (by each
// task's Policy) and the rest once their leases lapse; it returns an error
// saying so. With a deadline, Close returns by it, however many tasks run.
// Wait and Watch calls end with ErrClosed. Calls after the first return
// nil at once.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.closing)
	r.mu.Unlock()

	r.stopSweeps()
	<-r.sweepsDone
	drained := make(chan struct{})
	go func() {
		r.runsWG.Wait()
		close(drained)
	}()
	var waitCtx context.Context // ends when Close stops waiting for handlers
	var stopWaiting context.CancelFunc
	if deadline, ok := ctx.Deadline(); ok {
		waitCtx, stopWaiting = context.WithDeadline(ctx, deadline.Add(-min(CloseReserve, time.Until(deadline)/2)))
	} else {
		waitCtx, stopWaiting = context.WithCancel(ctx)
	}
	defer stopWaiting()
	var err error
	select {
	case <-drained:
	case <-waitCtx.Done():
		r.stopBeats()
		<-r.beatsDone
		finish := ctx
		if ctx.Err() != nil { // no deadline to keep: take the reserve from now
			var cancel context.CancelFunc
			finish, cancel = context.WithTimeout(context.WithoutCancel(ctx), CloseReserve)
			defer cancel()
		}
		n, released := r.abort(finish)
		select {
		case <-drained:
		case <-finish.Done():
		}
		err = fmt.Errorf("tasks: closing: %d task handlers were still running when the wait ended; they were stopped, "+
			"and the leases of %d released for another instance to recover at once (the others lapse within the lease): %w",
			n, released, context.Cause(waitCtx))
	}
	r.stopBeats()
	<-r.beatsDone
	r.stopProgress()
	r.progressWriters.Wait()
	r.cache.close()
	return err
}

// abort stops every local run and releases as many of their leases as it
// can until ctx ends. It returns how many runs it stopped and how many
// leases it released.
func (r *Runtime) abort(ctx context.Context) (stopped, released int) {
	r.mu.Lock()
	runs := make([]*run, 0, len(r.runs))
	for _, rn := range r.runs {
		runs = append(runs, rn)
	}
	r.mu.Unlock()
	for _, rn := range runs {
		rn.stop(ErrClosed)
	}
	jobs := make(chan *run)
	var (
		mu      sync.Mutex
		failed  int
		lastErr error
		workers sync.WaitGroup
	)
	for range min(releaseWorkers, len(runs)) {
		workers.Go(func() {
			for rn := range jobs {
				ok, err := r.release(ctx, rn)
				mu.Lock()
				if ok {
					released++
				} else if err != nil {
					failed, lastErr = failed+1, err
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, rn := range runs {
		select {
		case jobs <- rn:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	workers.Wait()
	if failed > 0 {
		r.problem(slog.LevelWarn, "release lease", "tasks: could not release the leases of stopped tasks; they are recovered once the leases lapse",
			slog.Int("tasks", failed), slog.Any("error", lastErr))
	}
	return len(runs), released
}

// release ends this instance's lease on the stopped run's task, reporting
// whether it did; the error is nil when there was no lease to release.
func (r *Runtime) release(ctx context.Context, rn *run) (bool, error) {
	_, err := r.mutate(ctx, rn.id, "", func(rec *Record) error {
		if rec.Status.Terminal() || rec.Owner != r.cfg.instanceID {
			return errUnchanged
		}
		rec.LeaseExpiresAt = r.now()
		return nil
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errUnchanged), errors.Is(err, ErrNotFound), errors.Is(err, ErrTerminal):
		return false, nil
	}
	return false, err
}

// load reads the task if the principal may see it, and ErrNotFound
// otherwise: from the record cache unless fresh is asked for.
func (r *Runtime) load(ctx context.Context, principal, id string, fresh bool) (*Record, error) {
	rec, err := r.cache.peek(ctx, id, fresh)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("tasks: reading the task: %w", err)
	}
	if !visible(rec, principal, r.now()) {
		return nil, ErrNotFound
	}
	return rec, nil
}

// visible reports whether the principal may see the record at time now:
// it is theirs and has not expired.
func visible(rec *Record, principal string, now time.Time) bool {
	return rec.Principal == principal && (rec.ExpiresAt.IsZero() || now.Before(rec.ExpiresAt))
}

// mutate applies change to the latest copy of the record and writes it
// back with compare-and-swap, retrying on conflicts. The first attempt
// starts from the record cache, so a change to a task this instance has
// just read or written costs one store call; compare-and-swap catches a
// copy that turned out stale, and a change refused on a cached copy of an
// unfinished task is tried again on the store's. An error from change on
// the store's copy is returned as is and nothing is written.
//
// signal is the kind of signal the caller publishes once the write is
// made ("" for none): on a store whose writes carry signals, the write
// sends it to the other instances (see publish).
func (r *Runtime) mutate(ctx context.Context, id string, signal SignalKind, change func(*Record) error) (*Record, error) {
	fresh := false
	for range maxCASAttempts {
		rec, mark, cached, err := r.cache.read(ctx, id, fresh)
		if err != nil {
			return nil, err
		}
		fresh = true
		before := rec.Status
		if err := change(rec); err != nil {
			if cached && !before.Terminal() {
				continue
			}
			return nil, err
		}
		r.storeWaits(ctx)
		switch {
		case r.cache.shared != nil:
			err = r.cache.shared.updateShared(ctx, rec) // rec is this call's copy, unchanged from here
		case r.signals != nil && signal != "":
			err = r.signals.update(ctx, rec, signal)
		default:
			err = r.store.Update(ctx, rec)
		}
		if err == nil {
			r.cache.wrote(rec, mark)
			return rec, nil
		}
		if !errors.Is(err, ErrConflict) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("tasks: task %s changed under each of %d attempts to update it; try again", id, maxCASAttempts)
}

// publish signals the task's change, just written by create or mutate with
// the same kind, to every instance. On a store whose writes carry signals
// the write has sent it to the other instances, and only this instance's
// subscriptions are told here. A lost signal only delays the reaction until
// the next heartbeat or poll, so failure is logged.
func (r *Runtime) publish(ctx context.Context, id string, kind SignalKind) {
	cached := kind != SignalCreated // the cache ignores a created signal
	if cached {
		r.cache.publishing(id)
	}
	ctx, s := context.WithoutCancel(ctx), Signal{TaskID: id, Kind: kind}
	var err error
	if r.signals != nil {
		err = r.signals.relay.PublishLocal(ctx, s)
	} else {
		err = r.bus.Publish(ctx, s)
	}
	if err != nil {
		if cached {
			r.cache.publishFailed(id)
		}
		r.problem(slog.LevelWarn, "publish", "tasks: could not publish a task signal; other instances notice at their next heartbeat or poll",
			slog.String("task_id", id), slog.String("signal", string(kind)), slog.Any("error", err))
	}
}

// now returns the clock's time without a monotonic reading, as a store would
// keep it.
func (r *Runtime) now() time.Time { return r.cfg.clock.Now().Round(0) }

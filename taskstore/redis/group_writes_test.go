package redis_test

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/redis"
)

// scriptGate is a client hook that, once armed, holds the next script run
// sent alone (EVALSHA) until opened, so that a Store's writes queue behind
// it; it records the commands of every pipeline.
type scriptGate struct {
	mu        sync.Mutex
	armed     bool
	holding   chan struct{} // closed when a run is held
	open      chan struct{} // closed to let it go
	pipelines [][]string
}

func (g *scriptGate) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (g *scriptGate) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		g.mu.Lock()
		hold := g.armed && cmd.Name() == "evalsha"
		if hold {
			g.armed = false
			close(g.holding)
		}
		g.mu.Unlock()
		if hold {
			<-g.open
		}
		return next(ctx, cmd)
	}
}

func (g *scriptGate) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.Name()
		}
		g.mu.Lock()
		g.pipelines = append(g.pipelines, names)
		g.mu.Unlock()
		return next(ctx, cmds)
	}
}

// pipelinesSince returns the command names of each pipeline after the
// first n.
func (g *scriptGate) pipelinesSince(n int) [][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.pipelines[n:])
}

// hold arms the gate and starts a Create on s, which it holds in flight;
// it returns once the Create is held, with the number of pipelines sent so
// far and a function that lets the Create go and checks its outcome.
func (g *scriptGate) hold(t *testing.T, s *redis.Store) (pipelines int, release func()) {
	t.Helper()
	g.mu.Lock()
	g.armed, g.holding, g.open = true, make(chan struct{}), make(chan struct{})
	pipelines = len(g.pipelines)
	g.mu.Unlock()
	held := make(chan error, 1)
	go func() { held <- s.Create(context.Background(), newTask(), tasks.Quota{}) }()
	<-g.holding
	return pipelines, func() {
		close(g.open)
		if err := <-held; err != nil {
			t.Errorf("Create of the write held in flight: %v", err)
		}
	}
}

// gatedStore returns a Store under a fresh prefix on a client with a
// scriptGate.
func gatedStore(t *testing.T, opts *goredis.Options) (*redis.Store, *scriptGate) {
	c := goredis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	gate := &scriptGate{}
	c.AddHook(gate)
	return newStoreOn(t, c, newPrefix(t)), gate
}

func newTask() *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: rand.Text(), Principal: "alice", Method: "tools/call", Name: "echo",
		Status: tasks.StatusWorking, CreatedAt: now, UpdatedAt: now, Owner: "a", LeaseExpiresAt: now.Add(time.Minute), Runs: 1}
}

// createTasks stores n new tasks through s.
func createTasks(t *testing.T, s *redis.Store, n int) []*tasks.Record {
	t.Helper()
	var recs []*tasks.Record
	for range n {
		rec := newTask()
		if err := s.Create(context.Background(), rec, tasks.Quota{}); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// finishAll starts, for each record, the Update that completes it, and
// returns each one's outcome on its channel.
func finishAll(ctx context.Context, s *redis.Store, recs []*tasks.Record) []chan error {
	outcomes := make([]chan error, len(recs))
	for i, rec := range recs {
		done := *rec
		done.Status, done.Result, done.UpdatedAt = tasks.StatusCompleted, []byte(`{"content":[]}`), time.Now()
		outcomes[i] = make(chan error, 1)
		go func() { outcomes[i] <- s.Update(ctx, &done) }()
	}
	return outcomes
}

// waitQueued waits until n writes wait for the pipeline held in flight,
// a state that lasts until the test lets it go.
func waitQueued(t *testing.T, s *redis.Store, n int) {
	t.Helper()
	for {
		if inFlight, queued := s.Writes(); inFlight && queued == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// checkStatus fails unless the task is stored with the status.
func checkStatus(t *testing.T, s *redis.Store, id string, want tasks.Status) {
	t.Helper()
	got, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get of task %s: %v", id, err)
	}
	if got.Status != want {
		t.Errorf("task %s is %s, want %s", id, got.Status, want)
	}
}

// Updates made while a write is in flight go together, in one pipeline,
// and each lands.
func TestWritesMadeMeanwhileGoInOnePipeline(t *testing.T) {
	needRedis(t)
	s, gate := gatedStore(t, redisOptions)
	recs := createTasks(t, s, 3)
	before, release := gate.hold(t, s)
	outcomes := finishAll(context.Background(), s, recs)
	waitQueued(t, s, len(recs))
	release()
	for i, ch := range outcomes {
		if err := <-ch; err != nil {
			t.Fatalf("Update of task %d: %v", i, err)
		}
		checkStatus(t, s, recs[i].ID, tasks.StatusCompleted)
	}
	want := [][]string{{"evalsha", "evalsha", "evalsha"}}
	if got := gate.pipelinesSince(before); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the updates that waited went as pipelines %v, want %v", got, want)
	}
}

// A script Redis no longer holds (restarted, or SCRIPT FLUSH) when a
// pipeline reaches it is run again alone, which loads it: the writes land.
// On a Redis of the test's own, which it flushes.
func TestAGroupOfWritesSurvivesScriptsFlushed(t *testing.T) {
	opts := privateRedis(t)
	s, gate := gatedStore(t, opts)
	recs := createTasks(t, s, 3)
	_, release := gate.hold(t, s)
	outcomes := finishAll(context.Background(), s, recs)
	waitQueued(t, s, len(recs))
	flusher := goredis.NewClient(opts)
	t.Cleanup(func() { flusher.Close() })
	if err := flusher.ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatalf("SCRIPT FLUSH: %v", err)
	}
	release()
	for i, ch := range outcomes {
		if err := <-ch; err != nil {
			t.Fatalf("Update of task %d after SCRIPT FLUSH: %v", i, err)
		}
		checkStatus(t, s, recs[i].ID, tasks.StatusCompleted)
	}
}

// A write made alone after Redis lost the scripts (restarted, or SCRIPT
// FLUSH) loads its script and lands: a creation, then an update.
func TestALoneWriteSurvivesScriptsFlushed(t *testing.T) {
	opts := privateRedis(t)
	client := goredis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	s := newStoreOn(t, client, newPrefix(t))
	createTasks(t, s, 1) // the scripts are loaded and run once
	flush := func() {
		t.Helper()
		if err := client.ScriptFlush(context.Background()).Err(); err != nil {
			t.Fatalf("SCRIPT FLUSH: %v", err)
		}
	}
	flush()
	rec := createTasks(t, s, 1)[0]
	flush()
	outcome := finishAll(context.Background(), s, []*tasks.Record{rec})[0]
	if err := <-outcome; err != nil {
		t.Fatalf("Update after SCRIPT FLUSH: %v", err)
	}
	checkStatus(t, s, rec.ID, tasks.StatusCompleted)
}

// A script that fails in a pipeline (here on a task's key holding a
// string) fails alone: the other writes of the pipeline land.
func TestAWriteThatFailsInAPipelineFailsAlone(t *testing.T) {
	needRedis(t)
	s, gate := gatedStore(t, redisOptions)
	recs := createTasks(t, s, 3)
	spoiled := recs[1]
	raw := newClient(t)
	if err := raw.Set(context.Background(), s.TaskKey(spoiled.ID), "not a hash", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, release := gate.hold(t, s)
	outcomes := finishAll(context.Background(), s, recs)
	waitQueued(t, s, len(recs))
	release()
	if err := <-outcomes[1]; err == nil {
		t.Error("Update of a task whose key holds a string succeeded")
	}
	for _, i := range []int{0, 2} {
		if err := <-outcomes[i]; err != nil {
			t.Errorf("Update of task %d, in a pipeline with a failing write: %v", i, err)
		}
		checkStatus(t, s, recs[i].ID, tasks.StatusCompleted)
	}
}

// A write whose caller gives up while it waits for a pipeline returns the
// context's error at once and is never made.
func TestAWaitingWriteGivenUpOnIsDropped(t *testing.T) {
	needRedis(t)
	s, gate := gatedStore(t, redisOptions)
	_, release := gate.hold(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	dropped := newTask()
	outcome := make(chan error, 1)
	go func() { outcome <- s.Create(ctx, dropped, tasks.Quota{}) }()
	waitQueued(t, s, 1)
	cancel()
	if err := <-outcome; !errors.Is(err, context.Canceled) {
		t.Fatalf("Create given up on while waiting: %v, want context.Canceled", err)
	}
	release()
	if _, err := s.Get(context.Background(), dropped.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of the task whose write was given up on: %v, want ErrNotFound", err)
	}
}

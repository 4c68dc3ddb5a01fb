package tasks_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// messageLog is a Store that records the status message of every
// successful Update, for tests that count writes.
type messageLog struct {
	tasks.Store
	cond
	mu     sync.Mutex
	writes []messageWrite
}

type messageWrite struct {
	msg string
	at  time.Time
}

func (s *messageLog) Update(ctx context.Context, rec *tasks.Record) error {
	err := s.Store.Update(ctx, rec)
	if err == nil {
		s.mu.Lock()
		s.writes = append(s.writes, messageWrite{rec.StatusMessage, time.Now()})
		s.mu.Unlock()
		s.broadcast()
	}
	return err
}

// progressWrites returns the progress messages written, each change once.
func (s *messageLog) progressWrites() []messageWrite {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []messageWrite
	for _, w := range s.writes {
		if strings.HasPrefix(w.msg, "step") && (len(out) == 0 || out[len(out)-1].msg != w.msg) {
			out = append(out, w)
		}
	}
	return out
}

func (s *messageLog) wrote(msg string) bool {
	for _, w := range s.progressWrites() {
		if w.msg == msg {
			return true
		}
	}
	return false
}

// The throttle runs on real timers: in a synctest bubble, time moves only
// when every goroutine waits, so "step 2" is replaced by "step 3" before its
// turn however slowly the machine runs them, and the gap between writes is
// measured exactly.
func TestProgressIsThrottledAndKeepsTheLatestMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Last of all, once the runtime has closed: the executor's idle
		// goroutines linger a second before they end, and the bubble must
		// end with none left.
		t.Cleanup(func() { time.Sleep(2 * time.Second) })
		c := newCluster(t)
		log := &messageLog{Store: c.store}
		const interval = 300 * time.Millisecond
		rt := c.instanceOn(log, "a", tasks.WithProgressInterval(interval))
		firstSeen, release := make(chan struct{}), make(chan struct{})
		rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
			x.Progress("step 1")
			<-firstSeen
			x.Progress("step 2") // replaced before its turn
			x.Progress("step 3")
			<-release
			return tasks.Result{Value: raw(`{}`)}, nil
		}, tasks.Policy{})
		task := start(t, rt, "alice", "job")

		log.wait(t, "the first progress message", func() bool { return log.wrote("step 1") })
		// The store has it; the runtime records its own write a moment
		// later, once the store's Update returns.
		synctest.Wait()
		if got, _ := rt.Get(testCtx(t), "alice", task.ID); got.StatusMessage != "step 1" {
			t.Fatalf("statusMessage is %q, want the progress message", got.StatusMessage)
		}
		close(firstSeen)
		log.wait(t, "the latest progress message", func() bool { return log.wrote("step 3") })
		close(release)
		wait(t, rt, "alice", task.ID)

		writes := log.progressWrites()
		if len(writes) != 2 || writes[0].msg != "step 1" || writes[1].msg != "step 3" {
			t.Fatalf("progress writes %v, want step 1 then step 3 only", writes)
		}
		if gap := writes[1].at.Sub(writes[0].at); gap < interval {
			t.Fatalf("two progress writes %v apart, closer than the %v interval allows", gap, interval)
		}
	})
}

// overlapLog is a Store that records the most Updates it had in flight at
// once; each Update yields the processor midway, so writes that can
// overlap do.
type overlapLog struct {
	tasks.Store
	mu            sync.Mutex
	inFlight, max int
}

func (s *overlapLog) Update(ctx context.Context, rec *tasks.Record) error {
	s.mu.Lock()
	s.inFlight++
	s.max = max(s.max, s.inFlight)
	s.mu.Unlock()
	time.Sleep(time.Millisecond)
	err := s.Store.Update(ctx, rec)
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	return err
}

func TestProgressOfManyTasksIsWrittenOneAtATimeEndingWithTheLatest(t *testing.T) {
	const reporting = 200
	c := newCluster(t)
	store := &overlapLog{Store: c.store}
	rt := c.instanceOn(store, "a", tasks.WithLimits(0, 0), tasks.WithLease(time.Hour, time.Minute))
	reported, done := make(chan struct{}, reporting), make(chan struct{})
	defer close(done)
	rt.Register("tools/call", "report", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		for i := 1; i <= 5; i++ {
			x.Progress(fmt.Sprint("step ", i))
		}
		reported <- struct{}{}
		<-done
		return tasks.Result{Value: raw(`{}`)}, nil
	}, tasks.Policy{})
	ids := make([]string, reporting)
	for i := range ids {
		ids[i] = start(t, rt, fmt.Sprint("client-", i), "report").ID
	}
	for range reporting {
		recv(t, reported, "the handlers to report")
	}
	for i, id := range ids {
		waitFor(t, rt, fmt.Sprint("client-", i), id, "the latest progress message", func(task tasks.Task) bool {
			return task.StatusMessage == "step 5"
		})
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.max > 1 {
		t.Fatalf("%d tasks reporting progress had %d store writes in flight at once; want one", reporting, store.max)
	}
}

package tasks_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/tasks"
)

const pacing = 100 * time.Millisecond

// pacedInstance starts, in a synctest bubble, a Runtime with the given
// pacing, whose heartbeat and sweep are too rare to touch the task while
// the test polls, and a "job" tool that reports each message sent on
// report and finishes when release is closed.
func pacedInstance(t *testing.T, every time.Duration) (rt *tasks.Runtime, report chan string, release chan struct{}) {
	// Last of all, once the runtime has closed: the executor's idle
	// goroutines linger a second before they end, and the bubble must end
	// with none left.
	t.Cleanup(func() { time.Sleep(2 * time.Second) })
	c := newCluster(t)
	rt = c.instance("a", tasks.WithPollPacing(every), tasks.WithLease(30*time.Second, 10*time.Second), tasks.WithSweepInterval(time.Minute))
	report, release = make(chan string), make(chan struct{})
	rt.Register("tools/call", "job", reportingJob(report, release), tasks.Policy{})
	return rt, report, release
}

// pollTimes polls the task n times back to back and returns how long each
// poll took, failing the test on an error or a status other than want.
func pollTimes(t *testing.T, rt *tasks.Runtime, id string, n int, want tasks.Status) []time.Duration {
	t.Helper()
	took := make([]time.Duration, n)
	for i := range took {
		start := time.Now()
		got, err := rt.Poll(testCtx(t), "alice", id)
		if err != nil {
			t.Fatalf("Poll %d: %v", i+1, err)
		}
		if got.Status != want {
			t.Fatalf("Poll %d: status %q, want %q", i+1, got.Status, want)
		}
		took[i] = time.Since(start)
	}
	return took
}

// pollInBackground polls alice's task on a goroutine of its own and
// returns where its answer comes, failing the test on an error.
func pollInBackground(t *testing.T, rt *tasks.Runtime, id string) <-chan tasks.Task {
	polled := make(chan tasks.Task, 1)
	go func() {
		got, err := rt.Poll(testCtx(t), "alice", id)
		if err != nil {
			t.Errorf("Poll: %v", err)
		}
		polled <- got
	}()
	return polled
}

// A client polling an unchanged, unfinished task back to back is answered
// once per pacing interval, the creation counting as the first answer (the
// client was told the task's state then): each poll, the first included,
// is answered when the interval since the previous answer is over. In the
// bubble, time moves only while every goroutine waits, so the waits are
// exact.
func TestPollPacesABackToBackPoller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _, release := pacedInstance(t, pacing)
		defer close(release)
		task := start(t, rt, "alice", "job")
		took := pollTimes(t, rt, task.ID, 4, tasks.StatusWorking)
		want := []time.Duration{pacing, pacing, pacing, pacing}
		for i := range took {
			if took[i] != want[i] {
				t.Errorf("poll %d took %v, want %v (all: %v)", i+1, took[i], want[i], took)
			}
		}
	})
}

// A poll right after the task was started waits for its first change, and
// no longer: the task finishing a quarter of the interval later answers it
// then. So a poller that ignores pollInterval costs one poll for a task
// that finishes at once, not one per poll until it has.
func TestPollRightAfterStartWaitsForTheFirstChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _, release := pacedInstance(t, pacing)
		task := start(t, rt, "alice", "job")
		begun := time.Now()
		polled := pollInBackground(t, rt, task.ID)
		synctest.Wait() // the poll waits
		time.Sleep(pacing / 4)
		close(release)
		got := <-polled
		if took := time.Since(begun); took != pacing/4 || got.Status != tasks.StatusCompleted {
			t.Errorf("the first poll took %v and answered %q, want %v and completed", took, got.Status, pacing/4)
		}
	})
}

// A first poll coming once the pacing interval since the start is over is
// answered at once.
func TestPollLongAfterStartIsNotPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _, release := pacedInstance(t, pacing)
		defer close(release)
		task := start(t, rt, "alice", "job")
		time.Sleep(pacing)
		if took := pollTimes(t, rt, task.ID, 1, tasks.StatusWorking)[0]; took != 0 {
			t.Errorf("a poll a whole interval after the start took %v, want no wait", took)
		}
	})
}

// A change to the task ends a paced poll's wait at once: the poller hears
// of progress, and of the task finishing, as soon as they happen.
func TestPollAnswersAtOnceWhenTheTaskChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, report, release := pacedInstance(t, pacing)
		task := start(t, rt, "alice", "job")
		pollTimes(t, rt, task.ID, 1, tasks.StatusWorking)

		for _, step := range []struct {
			name   string
			change func()
			check  func(tasks.Task) bool
		}{
			{"progress", func() { report <- "half way" }, func(got tasks.Task) bool { return got.StatusMessage == "half way" }},
			{"completion", func() { close(release) }, func(got tasks.Task) bool { return got.Status == tasks.StatusCompleted }},
		} {
			start := time.Now()
			polled := pollInBackground(t, rt, task.ID)
			synctest.Wait() // the poll waits for the interval to end
			time.Sleep(pacing / 4)
			step.change()
			got := <-polled
			if took := time.Since(start); took != pacing/4 {
				t.Errorf("%s: the poll took %v, want %v: until the change, not the end of the interval", step.name, took, pacing/4)
			}
			if !step.check(got) {
				t.Errorf("%s: the poll answered %+v, which does not show it", step.name, got)
			}
		}
	})
}

// A poll after a change it has not yet shown is answered at once, however
// soon it comes after the previous one.
func TestPollShowsAnEarlierChangeAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, report, release := pacedInstance(t, pacing)
		defer close(release)
		task := start(t, rt, "alice", "job")
		pollTimes(t, rt, task.ID, 1, tasks.StatusWorking)
		report <- "half way"
		synctest.Wait() // the progress is written
		start := time.Now()
		got, err := rt.Poll(testCtx(t), "alice", task.ID)
		if err != nil {
			t.Fatalf("Poll: %v", err)
		}
		if took := time.Since(start); took != 0 || got.StatusMessage != "half way" {
			t.Errorf("the poll after progress took %v and shows %q, want no wait and the progress", took, got.StatusMessage)
		}
	})
}

// A finished task is final: polls of it are never held.
func TestPollOfAFinishedTaskIsNotPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _, release := pacedInstance(t, pacing)
		task := start(t, rt, "alice", "job")
		close(release)
		wait(t, rt, "alice", task.ID)
		for i, took := range pollTimes(t, rt, task.ID, 3, tasks.StatusCompleted) {
			if took != 0 {
				t.Errorf("poll %d of the finished task took %v, want no wait", i+1, took)
			}
		}
	})
}

// WithPollPacing(0) turns pacing off.
func TestPollPacingOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _, release := pacedInstance(t, 0)
		defer close(release)
		task := start(t, rt, "alice", "job")
		for i, took := range pollTimes(t, rt, task.ID, 3, tasks.StatusWorking) {
			if took != 0 {
				t.Errorf("poll %d took %v with pacing off, want no wait", i+1, took)
			}
		}
	})
}

// A paced poll whose context ends returns the context's cause.
func TestPollWaitEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _, release := pacedInstance(t, pacing)
		defer close(release)
		task := start(t, rt, "alice", "job")
		pollTimes(t, rt, task.ID, 1, tasks.StatusWorking)
		gone := errors.New("the client went away")
		ctx, cancel := context.WithCancelCause(testCtx(t))
		go func() {
			time.Sleep(pacing / 2)
			cancel(gone)
		}()
		if _, err := rt.Poll(ctx, "alice", task.ID); !errors.Is(err, gone) {
			t.Fatalf("Poll with its context cancelled during the wait: %v, want the cause %q", err, gone)
		}
	})
}

package tasks_test

import (
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// The suggested poll interval is short for a new or just changed task,
// grows while nothing changes and with the task's age, and stays within
// its bounds.
func TestPollIntervalFollowsHowTheTaskIsGoing(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a", tasks.WithPollInterval(2*time.Second), tasks.WithMinPollInterval(100*time.Millisecond))
	report, release := make(chan string), make(chan struct{})
	rt.Register("tools/call", "job", reportingJob(report, release), tasks.Policy{})
	task := start(t, rt, "alice", "job")
	poll := func(want time.Duration, when string) {
		t.Helper()
		got, err := rt.Get(testCtx(t), "alice", task.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got.PollInterval != want {
			t.Errorf("%s: pollInterval %v, want %v", when, got.PollInterval, want)
		}
	}
	if task.PollInterval != 100*time.Millisecond {
		t.Errorf("a new task: pollInterval %v, want the minimum, 100ms", task.PollInterval)
	}
	c.clock.Advance(time.Second)
	poll(500*time.Millisecond, "1s without a change (half the quiet time)")
	c.clock.Advance(9 * time.Second)
	poll(2*time.Second, "10s without a change (at most the maximum)")

	report <- "half way"
	waitFor(t, rt, "alice", task.ID, "the progress message", func(got tasks.Task) bool { return got.StatusMessage == "half way" })
	poll(500*time.Millisecond, "just after progress at 10s old (a twentieth of its age)")
	close(release)
	done := wait(t, rt, "alice", task.ID)
	if done.PollInterval != 2*time.Second {
		t.Errorf("a finished task: pollInterval %v, want the maximum", done.PollInterval)
	}
}

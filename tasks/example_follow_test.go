package tasks_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// Follow reports a task's changes as this instance makes or sees them,
// with no goroutine or store read per task: what a server needs to send
// status notifications.
func ExampleStartRequest_follow() {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	defer rt.Close(ctx)
	reported := make(chan struct{})
	rt.Register("tools/call", "report", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		x.Progress("half way")
		<-reported
		return tasks.Result{Value: []byte(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	changes := make(chan string, 8)
	_, err = rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "report",
		Follow: func(t tasks.Task, stopped bool) { changes <- fmt.Sprintf("%s %q", t.Status, t.StatusMessage) }})
	if err != nil {
		panic(err)
	}
	fmt.Println(<-changes)
	close(reported)
	fmt.Println(<-changes)
	// Output:
	// working "half way"
	// completed ""
}

// The poll interval a task suggests starts at the minimum and grows while
// the task does not change, up to the maximum.
func ExampleWithMinPollInterval() {
	clock := storetest.NewClock(time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC))
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithClock(clock),
		tasks.WithMinPollInterval(100*time.Millisecond), tasks.WithPollInterval(5*time.Second),
		tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	release := make(chan struct{})
	rt.Register("tools/call", "long", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-release
		return tasks.Result{Value: []byte(`{}`)}, nil
	}, tasks.Policy{})
	task, err := rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "long"})
	if err != nil {
		panic(err)
	}
	fmt.Println(task.PollInterval)
	for _, wait := range []time.Duration{time.Second, 3 * time.Second, time.Minute} {
		clock.Advance(wait)
		got, _ := rt.Get(ctx, "alice", task.ID)
		fmt.Println(got.PollInterval)
	}
	close(release)
	rt.Close(ctx)
	// Output:
	// 100ms
	// 500ms
	// 2s
	// 5s
}

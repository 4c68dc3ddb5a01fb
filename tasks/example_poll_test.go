package tasks_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// Poll is Get for answering a client's polls: a client that polls back to
// back, ignoring the suggested interval, is answered once per pacing
// interval while the task is unchanged, and at once when it changes.
func ExampleRuntime_Poll() {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(),
		tasks.WithLogger(slog.New(slog.DiscardHandler)), tasks.WithPollPacing(time.Second))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	defer rt.Close(ctx)
	finish := make(chan struct{})
	rt.Register("tools/call", "build", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-finish
		return tasks.Result{Value: []byte(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	task, err := rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "build"})
	if err != nil {
		panic(err)
	}
	time.AfterFunc(100*time.Millisecond, func() { close(finish) })
	polls := 0
	for !task.Status.Terminal() {
		// A client with no pause between polls: without pacing, thousands
		// of answers before the task finishes.
		if task, err = rt.Poll(ctx, "alice", task.ID); err != nil {
			panic(err)
		}
		polls++
	}
	fmt.Println(task.Status, "after at most 3 polls:", polls <= 3)
	// Output:
	// completed after at most 3 polls: true
}

package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/weftmcp/weft/tasks"
)

// A Runtime refuses a task past its limits, saying which limit and what to
// do; the defaults are DefaultMaxTasksPerPrincipal and DefaultMaxTasks.
func ExampleWithLimits() {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(),
		tasks.WithLimits(1, 100), tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	release := make(chan struct{})
	rt.Register("tools/call", "slow", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-release
		return tasks.Result{Value: []byte(`{}`)}, nil
	}, tasks.Policy{})
	ctx := context.Background()
	req := tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "slow"}
	if _, err := rt.Start(ctx, req); err != nil {
		panic(err)
	}
	_, err = rt.Start(ctx, req)
	var limit *tasks.LimitError
	if errors.As(err, &limit) {
		fmt.Println(limit.Scope, limit.Limit)
		fmt.Println(err)
	}
	close(release)
	rt.Close(ctx)
	// Output:
	// principal 1
	// tasks: you already have 1 unfinished tasks, the most allowed; wait for one to finish or cancel one
}

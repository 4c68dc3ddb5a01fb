package otel_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server/servertest"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// reportedChanges is a TaskObserver that hands each change to the one it
// wraps, then sends it on a channel: once a change arrives, the wrapped
// observer has seen it.
type reportedChanges struct {
	tasks.TaskObserver
	changes chan tasks.TaskChange
}

func (r reportedChanges) TaskChanged(c tasks.TaskChange) {
	r.TaskObserver.TaskChanged(c)
	r.changes <- c
}

// waitChange waits for a change from → to on one of the channels.
func waitChange(t *testing.T, changes chan tasks.TaskChange, from, to tasks.Status) tasks.TaskChange {
	t.Helper()
	timeout := time.After(servertest.Timeout)
	for {
		select {
		case c := <-changes:
			if c.From == from && c.To == to {
				return c
			}
		case <-timeout:
			t.Fatalf("no change %q → %q reported within %v", from, to, servertest.Timeout)
		}
	}
}

// A task asks on the instance running it and is answered through another,
// as behind a load balancer: the wait is recorded once, by the instance
// the answer reached, for the time the clock moved while the task waited.
// The instance that saw only the wait begin records nothing.
func TestAWaitInInputRequiredIsRecordedByTheInstanceThatEndsIt(t *testing.T) {
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	clock := storetest.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	type node struct {
		rt      *tasks.Runtime
		reader  *sdkmetric.ManualReader
		changes chan tasks.TaskChange
	}
	ask := json.RawMessage(`{"method":"elicitation/create","params":{"message":"Deploy?"}}`)
	newNode := func(name string) node {
		n := node{reader: sdkmetric.NewManualReader(), changes: make(chan tasks.TaskChange, 16)}
		inst, err := weftotel.New(&weftotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(n.reader))})
		if err != nil {
			t.Fatal(err)
		}
		n.rt, err = tasks.New(store, bus, tasks.WithInstanceID(name), tasks.WithClock(clock),
			tasks.WithObserver(reportedChanges{inst.TaskObserver(), n.changes}), tasks.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.rt.Close(context.Background()) })
		n.rt.Register("tools/call", "deploy", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
			answer, err := x.Ask(ctx, ask)
			return tasks.Result{Value: answer}, err
		}, tasks.Policy{})
		return n
	}
	a, b := newNode("a"), newNode("b")
	ctx := context.Background()

	task, err := a.rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "deploy", Params: json.RawMessage(`{"name":"deploy"}`)})
	if err != nil {
		t.Fatal(err)
	}
	waitChange(t, a.changes, tasks.StatusWorking, tasks.StatusInputRequired)
	clock.Advance(7 * time.Second)
	if err := b.rt.Answer(ctx, "alice", task.ID, map[string]json.RawMessage{"input-1": json.RawMessage(`{"action":"accept"}`)}); err != nil {
		t.Fatal(err)
	}
	waitChange(t, b.changes, tasks.StatusInputRequired, tasks.StatusWorking)
	waitChange(t, a.changes, tasks.StatusWorking, tasks.StatusCompleted)

	const name = "mcp.server.task.input_required.duration"
	if got := histogramSamples(t, b.reader, name, weftotel.AttrToolName)["deploy"]; got.count != 1 || got.sum != 7 {
		t.Errorf("instance b, which the answer reached, recorded %d waits of %vs in all; want 1 of 7s", got.count, got.sum)
	}
	if got := histogramSamples(t, a.reader, name, weftotel.AttrToolName)["deploy"]; got.count != 0 {
		t.Errorf("instance a, which saw only the wait begin, recorded %d waits; want none", got.count)
	}
	if got := histogramSamples(t, a.reader, "mcp.server.task.duration", weftotel.AttrToolName)["deploy"]; got.count != 1 || got.sum != 7 {
		t.Errorf("instance a, which ran the task to completion, recorded %d task durations of %vs in all; want 1 of 7s", got.count, got.sum)
	}
}

package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/postgres"
)

// openBus opens a Bus in schema, closed when the test ends.
func openBus(t testing.TB, schema string) *postgres.Bus {
	t.Helper()
	b, err := postgres.OpenBus(context.Background(), connString(), nil, postgres.WithSchema(schema))
	if err != nil {
		t.Fatalf("OpenBus: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBusContract(t *testing.T) {
	storetest.TestBus(t, func(t *testing.T) tasks.Bus { return openBus(t, freshSchema(t)) })
}

// Two Buses on one schema stand for two instances.
func TestBusPairContract(t *testing.T) {
	storetest.TestBusPair(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		schema := freshSchema(t)
		return openBus(t, schema), openBus(t, schema)
	})
}

// Buses of different schemas do not hear each other.
func TestBusesOfOtherSchemasStayApart(t *testing.T) {
	a, b := openBus(t, freshSchema(t)), openBus(t, freshSchema(t))
	ctx := context.Background()
	sub, err := b.Subscribe(ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := a.Publish(ctx, tasks.Signal{TaskID: "task", Kind: tasks.SignalCancel}); err != nil {
		t.Fatal(err)
	}
	// A signal on b's own channel, sent after a's, arrives after it would.
	if err := b.Publish(ctx, tasks.Signal{TaskID: "task", Kind: tasks.SignalInput}); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-sub.Signals():
		if s.Kind != tasks.SignalInput {
			t.Errorf("a bus heard %+v from another schema's bus", s)
		}
	case <-time.After(signalWait):
		t.Fatalf("no signal from b's own channel within %v", signalWait)
	}
}

// When the listening connection is killed, the Bus listens again and
// wakes its subscriptions; signals flow again after.
func TestBusReconnectsAndWakesSubscriptions(t *testing.T) {
	schema := freshSchema(t)
	a, b := openBus(t, schema), openBus(t, schema)
	ctx := context.Background()
	sub, err := b.Subscribe(ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Every listener on the schema's channel is cut off.
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN %' AND query LIKE '%'||$1||'%'`, schema); err != nil {
		t.Fatal(err)
	}
	want := func(kind tasks.SignalKind) {
		t.Helper()
		select {
		case s := <-sub.Signals():
			if s.Kind != kind {
				t.Fatalf("got %+v, want a %s signal", s, kind)
			}
		case <-time.After(signalWait):
			t.Fatalf("no %s signal within %v", kind, signalWait)
		}
	}
	want(tasks.SignalStatus) // the wake-up after reconnecting
	deadline := time.Now().Add(signalWait)
	for {
		if err := a.Publish(ctx, tasks.Signal{TaskID: "task", Kind: tasks.SignalCancel}); err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-sub.Signals():
			if s.Kind == tasks.SignalCancel {
				return
			}
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no signal got through after the reconnect")
		}
	}
}

// When the listening connection goes silent without closing (a failover,
// a dropped route), the Bus notices within its listener check, listens
// again and wakes its subscriptions, instead of staying deaf until TCP
// keepalive gives up.
func TestBusListensAgainWhenItsConnectionGoesSilent(t *testing.T) {
	schema := freshSchema(t)
	proxy, through := newBlackhole(t)
	b, err := postgres.OpenBus(context.Background(), through, nil, postgres.WithSchema(schema),
		postgres.WithListenerCheck(200*time.Millisecond))
	if err != nil {
		t.Fatalf("OpenBus: %v", err)
	}
	defer b.Close()
	sub, err := b.Subscribe(context.Background(), "task")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	proxy.cut()
	for drained := false; !drained; { // a wake-up from before the cut proves nothing
		select {
		case <-sub.Signals():
		default:
			drained = true
		}
	}
	select {
	case s := <-sub.Signals():
		if s.Kind != tasks.SignalStatus {
			t.Fatalf("got %+v, want the status wake-up of listening again", s)
		}
	case <-time.After(signalWait):
		t.Fatalf("no wake-up within %v of the listening connection going silent", signalWait)
	}
}

// signalWait bounds a wait for a signal through PostgreSQL, which on a
// loaded machine may take its time to reconnect: reaching it is a failure.
const signalWait = time.Minute

// Signals published at once, which the Bus sends several to a statement,
// each reach the other instance as a signal of its own.
func TestBusDeliversEverySignalOfABatch(t *testing.T) {
	schema := freshSchema(t)
	a, b := openBus(t, schema), openBus(t, schema)
	ctx := context.Background()
	const n = 64
	subs := make([]tasks.Subscription, n)
	for i := range subs {
		sub, err := b.Subscribe(ctx, fmt.Sprint("task-", i))
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		subs[i] = sub
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := a.Publish(ctx, tasks.Signal{TaskID: fmt.Sprint("task-", i), Kind: tasks.SignalStatus}); err != nil {
				t.Errorf("Publish %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	for i, sub := range subs {
		select {
		case s := <-sub.Signals():
			if s.TaskID != fmt.Sprint("task-", i) || s.Kind != tasks.SignalStatus {
				t.Errorf("task-%d's subscription got %+v", i, s)
			}
		case <-time.After(signalWait):
			t.Fatalf("task-%d's signal did not arrive within %v", i, signalWait)
		}
	}
}

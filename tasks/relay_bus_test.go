package tasks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// channel is a message service in memory: every message sent reaches
// every bus joined to it, the sender included, as a real service does.
type channel struct {
	mu    sync.Mutex
	buses []*tasks.RelayBus
}

func (c *channel) join() *tasks.RelayBus {
	b := tasks.NewRelayBus(func(_ context.Context, msg string) error {
		c.mu.Lock()
		buses := append([]*tasks.RelayBus(nil), c.buses...)
		c.mu.Unlock()
		for _, o := range buses {
			if err := o.Receive(msg); err != nil {
				return err
			}
		}
		return nil
	})
	c.mu.Lock()
	c.buses = append(c.buses, b)
	c.mu.Unlock()
	return b
}

func TestRelayBusContract(t *testing.T) {
	storetest.TestBus(t, func(t *testing.T) tasks.Bus { return new(channel).join() })
	storetest.TestBusPair(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		c := new(channel)
		return c.join(), c.join()
	})
}

func TestRelayBusResyncWakesEverySubscription(t *testing.T) {
	b := new(channel).join()
	ctx := context.Background()
	a, err := b.Subscribe(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	gone, _ := b.Subscribe(ctx, "gone")
	gone.Close()
	b.Resync()
	select {
	case s := <-a.Signals():
		if s.TaskID != "a" || s.Kind != tasks.SignalStatus {
			t.Errorf("Resync delivered %+v, want a status signal for a", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Resync woke no subscription")
	}
}

func TestRelayBusRefusesMalformedMessagesAndCallsAfterClose(t *testing.T) {
	b := new(channel).join()
	for _, msg := range []string{"", "cancel", "cancel origin-only", " x y"} {
		if err := b.Receive(msg); err == nil {
			t.Errorf("Receive(%q) took a malformed message", msg)
		}
	}
	b.Close()
	if err := b.Publish(context.Background(), tasks.Signal{TaskID: "a", Kind: tasks.SignalCancel}); err != tasks.ErrBusClosed {
		t.Errorf("Publish after Close: %v, want ErrBusClosed", err)
	}
	if _, err := b.Subscribe(context.Background(), "a"); err != tasks.ErrBusClosed {
		t.Errorf("Subscribe after Close: %v, want ErrBusClosed", err)
	}
}

// A RelayBus over a shared channel keeps the multi-instance contract.
func TestRelayBusClusterContract(t *testing.T) {
	storetest.TestCluster(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		store, c := tasks.NewMemoryStore(), new(channel)
		return func() (tasks.Store, tasks.Bus) { return store, c.join() }
	})
}

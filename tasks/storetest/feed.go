package storetest

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// TestFeed runs the contract of tasks.Feed, the subscription to every
// task's signals, with two handles on one fresh backing service per
// subtest (the same Bus twice for a single-process one); both must
// implement tasks.Feed.
func TestFeed(t *testing.T, open func(t *testing.T) (a, b tasks.Bus)) {
	tests := []struct {
		name string
		fn   func(*testing.T, tasks.Bus, tasks.Bus)
	}{
		{"DeliversEveryTaskFromEveryInstance", testFeedEveryTask},
		{"CloseEndsTheFeed", testFeedClose},
		{"FallingBehindGivesResync", testFeedResync},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := open(t)
			tt.fn(t, a, b)
		})
	}
}

// subscribeAll subscribes to every task or fails the test; the
// subscription is closed at the end of the test.
func subscribeAll(t *testing.T, b tasks.Bus) tasks.Subscription {
	t.Helper()
	feed, ok := b.(tasks.Feed)
	if !ok {
		t.Fatalf("%T does not implement tasks.Feed", b)
	}
	sub, err := feed.SubscribeAll(context.Background())
	if err != nil {
		t.Fatalf("SubscribeAll: %v", err)
	}
	t.Cleanup(func() { sub.Close() })
	return sub
}

func testFeedEveryTask(t *testing.T, a, b tasks.Bus) {
	subs := []tasks.Subscription{subscribeAll(t, a), subscribeAll(t, b)}
	want := map[tasks.Signal]bool{
		{TaskID: rand.Text(), Kind: tasks.SignalStatus}: true,
		{TaskID: rand.Text(), Kind: tasks.SignalCancel}: true,
		{TaskID: rand.Text(), Kind: tasks.SignalInput}:  true,
	}
	from := a
	for s := range want {
		publish(t, from, s.TaskID, s.Kind)
		from = map[tasks.Bus]tasks.Bus{a: b, b: a}[from]
	}
	for i, sub := range subs {
		seen := make(map[tasks.Signal]bool)
		for len(seen) < len(want) {
			s := receive(t, sub)
			if !want[s] {
				t.Fatalf("feed %d received %+v, which nobody published", i, s)
			}
			seen[s] = true
		}
	}
}

func testFeedClose(t *testing.T, a, _ tasks.Bus) {
	sub := subscribeAll(t, a)
	other := subscribeAll(t, a)
	sub.Close()
	sub.Close()
	for range sub.Signals() {
	}
	publish(t, a, "task", tasks.SignalStatus)
	if got := receive(t, other); got.TaskID != "task" {
		t.Fatalf("the other feed received %+v", got)
	}
}

// testFeedResync: a feed that does not keep up receives a Resync in place
// of what it missed, and signals again after it.
func testFeedResync(t *testing.T, a, b tasks.Bus) {
	sub := subscribeAll(t, b)
	for range 3000 {
		publish(t, a, rand.Text(), tasks.SignalStatus)
	}
	last := rand.Text()
	publish(t, a, last, tasks.SignalStatus)
	resynced := false
	for {
		s := receive(t, sub)
		if s == tasks.Resync {
			resynced = true
		}
		if s.TaskID == last {
			break
		}
	}
	if !resynced {
		t.Fatal("3,000 signals queued on an unread feed, and no Resync said that some were lost")
	}
}

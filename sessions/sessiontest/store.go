package sessiontest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
)

// TestStore runs the contract against fresh stores from open, one per
// subtest.
func TestStore(t *testing.T, open func(t *testing.T) sessions.Store) {
	run(t, func(t *testing.T) (sessions.Store, sessions.Store) {
		s := open(t)
		return s, s
	})
}

// TestStorePair runs the contract with two handles on one fresh backing
// store per subtest, standing for two instances: writes go through one and
// reads through the other.
func TestStorePair(t *testing.T, open func(t *testing.T) (a, b sessions.Store)) {
	run(t, open)
}

type opener func(t *testing.T) (a, b sessions.Store)

func run(t *testing.T, open opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, opener)
	}{
		{"CreateIsVisibleAtOnce", testCreate},
		{"CreateRejectsDuplicateID", testDuplicate},
		{"MissingSessionIsNotFound", testMissing},
		{"RecordsAreCopies", testCopies},
		{"TouchWritesOnlyWhenStale", testTouch},
		{"LevelAndSubscriptions", testState},
		{"WritesShowTheSessionInUse", testWritesShowUse},
		{"ConcurrentSubscriptionsAreAllKept", testConcurrentSubscribe},
		{"EndEndsEverywhere", testEnd},
		{"ExpireDeletesIdleSessions", testExpire},
		{"ExpireEndedBeforeDeletesOnlyEndedSessions", testExpireEnded},
		{"StateKeyIsOneForTheStore", testStateKey},
		{"SubscribersFollowSubscriptions", testSubscribers},
		{"SubscribersComeInPages", testSubscriberPages},
		{"ConcurrentSubscribersAreAllListed", testConcurrentSubscribers},
		{"CancelledContext", testCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

// epoch is the kit's "now", with millisecond precision.
var epoch = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// newRecord returns a session with every field set.
func newRecord(principal string) *sessions.Record {
	return &sessions.Record{
		ID:            rand.Text(),
		Principal:     principal,
		Version:       "2025-11-25",
		Capabilities:  json.RawMessage(`{"elicitation":{},"roots":{"listChanged":true}}`),
		ClientInfo:    json.RawMessage(`{"name":"kit","version":"1.0.0"}`),
		Level:         "info",
		Subscriptions: []string{"file:///a", "file:///b"},
		CreatedAt:     epoch,
		LastSeen:      epoch.Add(time.Millisecond),
	}
}

func create(t *testing.T, s sessions.Store, rec *sessions.Record) *sessions.Record {
	t.Helper()
	if err := s.Create(context.Background(), rec); err != nil {
		t.Fatalf("Create(%s): %v", rec.ID, err)
	}
	return rec
}

func get(t *testing.T, s sessions.Store, id string) *sessions.Record {
	t.Helper()
	rec, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return rec
}

// same fails the test unless got equals want, comparing times as instants
// and subscriptions as sets.
func same(t *testing.T, what string, got, want *sessions.Record) {
	t.Helper()
	if g, w := normal(got), normal(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: the stored session differs\n got: %+v\nwant: %+v", what, g, w)
	}
}

func normal(r *sessions.Record) *sessions.Record {
	c := r.Clone()
	c.CreatedAt, c.LastSeen = c.CreatedAt.UTC(), c.LastSeen.UTC()
	slices.Sort(c.Subscriptions)
	if len(c.Subscriptions) == 0 {
		c.Subscriptions = nil
	}
	if len(c.Capabilities) == 0 {
		c.Capabilities = nil
	}
	if len(c.ClientInfo) == 0 {
		c.ClientInfo = nil
	}
	return c
}

func testCreate(t *testing.T, open opener) {
	a, b := open(t)
	want := create(t, a, newRecord("alice"))
	same(t, "Get after Create", get(t, b, want.ID), want)
	bare := &sessions.Record{ID: rand.Text(), CreatedAt: epoch, LastSeen: epoch}
	create(t, a, bare)
	same(t, "Get of a session with empty fields", get(t, b, bare.ID), bare)
}

func testDuplicate(t *testing.T, open opener) {
	a, b := open(t)
	rec := create(t, a, newRecord("alice"))
	dup := newRecord("mallory")
	dup.ID = rec.ID
	if err := b.Create(context.Background(), dup); !errors.Is(err, sessions.ErrExists) {
		t.Fatalf("Create with a taken ID: got %v, want ErrExists", err)
	}
	if got := get(t, a, rec.ID); got.Principal != "alice" {
		t.Fatalf("a duplicate Create overwrote the session: principal %q", got.Principal)
	}
}

func testMissing(t *testing.T, open opener) {
	a, _ := open(t)
	ctx := context.Background()
	id := rand.Text()
	for name, err := range map[string]error{
		"Get":         func() error { _, err := a.Get(ctx, id); return err }(),
		"Touch":       func() error { _, err := a.Touch(ctx, id, epoch, time.Second); return err }(),
		"SetLevel":    drop(a.SetLevel(ctx, id, "debug", epoch)),
		"Subscribe":   drop(a.Subscribe(ctx, id, "file:///a", epoch)),
		"Unsubscribe": drop(a.Unsubscribe(ctx, id, "file:///a", epoch)),
		"End":         a.End(ctx, id, ""),
	} {
		if !errors.Is(err, sessions.ErrNotFound) {
			t.Errorf("%s of a missing session: got %v, want ErrNotFound", name, err)
		}
	}
	if _, err := a.Get(ctx, id); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("a write of a missing session created it")
	}
}

func testCopies(t *testing.T, open opener) {
	a, b := open(t)
	rec := create(t, a, newRecord("alice"))
	want := rec.Clone()
	rec.Capabilities[0] = 'X'
	rec.Subscriptions[0] = "changed after Create"
	got := get(t, b, rec.ID)
	same(t, "after changing the record given to Create", got, want)
	got.ClientInfo[0] = 'Y'
	got.Subscriptions = append(got.Subscriptions[:0], "changed after Get")
	same(t, "after changing the record Get returned", get(t, b, want.ID), want)
}

func testTouch(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	rec := create(t, a, newRecord("alice"))
	const every = time.Minute
	// Within every of LastSeen: nothing is written.
	got, err := b.Touch(ctx, rec.ID, rec.LastSeen.Add(every), every)
	if err != nil {
		t.Fatalf("Touch: %v", err)
	}
	same(t, "Touch within the interval returned", got, rec)
	same(t, "Touch within the interval stored", get(t, a, rec.ID), rec)
	// Past it: LastSeen moves to now, and Touch returns the new record.
	now := rec.LastSeen.Add(every + time.Millisecond)
	got, err = b.Touch(ctx, rec.ID, now, every)
	if err != nil {
		t.Fatalf("Touch: %v", err)
	}
	rec.LastSeen = now
	same(t, "Touch past the interval returned", got, rec)
	same(t, "Touch past the interval stored", get(t, a, rec.ID), rec)
	// An ended session is returned as ended and not touched.
	if err := a.End(ctx, rec.ID, rec.Principal); err != nil {
		t.Fatalf("End: %v", err)
	}
	got, err = b.Touch(ctx, rec.ID, now.Add(time.Hour), every)
	if err != nil {
		t.Fatalf("Touch of an ended session: %v", err)
	}
	rec.Ended, rec.LastSeen = true, sessions.EndedLastSeen
	same(t, "Touch of an ended session", got, rec)
}

func testState(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	rec := create(t, a, newRecord("alice"))
	got, err := b.SetLevel(ctx, rec.ID, "debug", rec.LastSeen)
	if err != nil {
		t.Fatalf("SetLevel: %v", err)
	}
	rec.Level = "debug"
	same(t, "SetLevel returned", got, rec)
	for _, step := range []struct {
		sub  bool
		uri  string
		want []string
	}{
		{true, "file:///c", []string{"file:///a", "file:///b", "file:///c"}},
		{true, "file:///a", []string{"file:///a", "file:///b", "file:///c"}},
		{false, "file:///b", []string{"file:///a", "file:///c"}},
		{false, "file:///never", []string{"file:///a", "file:///c"}},
	} {
		var err error
		if step.sub {
			got, err = b.Subscribe(ctx, rec.ID, step.uri, rec.LastSeen)
		} else {
			got, err = b.Unsubscribe(ctx, rec.ID, step.uri, rec.LastSeen)
		}
		if err != nil {
			t.Fatalf("subscribe %v %s: %v", step.sub, step.uri, err)
		}
		rec.Subscriptions = step.want
		same(t, fmt.Sprintf("subscribe %v %s returned", step.sub, step.uri), got, rec)
	}
	same(t, "after SetLevel, Subscribe and Unsubscribe", get(t, a, rec.ID), rec)
	touched, err := a.Touch(ctx, rec.ID, rec.LastSeen, time.Minute)
	if err != nil {
		t.Fatalf("Touch: %v", err)
	}
	same(t, "Touch after SetLevel, Subscribe and Unsubscribe", touched, rec)
	for _, uri := range rec.Subscriptions {
		if _, err := b.Unsubscribe(ctx, rec.ID, uri, rec.LastSeen); err != nil {
			t.Fatalf("Unsubscribe: %v", err)
		}
	}
	rec.Subscriptions = nil
	same(t, "after unsubscribing from everything", get(t, a, rec.ID), rec)
}

// testWritesShowUse checks that a write moves LastSeen forward to its now,
// never back, as seen by the record it returns, by Get, and by Expire.
func testWritesShowUse(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	level := func(id string, now time.Time) (*sessions.Record, error) { return b.SetLevel(ctx, id, "error", now) }
	sub := func(id string, now time.Time) (*sessions.Record, error) {
		return b.Subscribe(ctx, id, "file:///z", now)
	}
	unsub := func(id string, now time.Time) (*sessions.Record, error) {
		return b.Unsubscribe(ctx, id, "file:///a", now)
	}
	writes := []struct {
		name  string
		write func(id string, now time.Time) (*sessions.Record, error)
		apply func(*sessions.Record)
	}{
		{"SetLevel", level, func(r *sessions.Record) { r.Level = "error" }},
		{"Subscribe", sub, func(r *sessions.Record) { r.Subscriptions = append(r.Subscriptions, "file:///z") }},
		{"Unsubscribe", unsub, func(r *sessions.Record) { r.Subscriptions = slices.DeleteFunc(r.Subscriptions, isURI("file:///a")) }},
	}
	for _, w := range writes {
		rec := create(t, a, newRecord("alice"))
		// An earlier now leaves LastSeen where it is.
		got, err := w.write(rec.ID, rec.LastSeen.Add(-time.Hour))
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		w.apply(rec)
		same(t, w.name+" with an earlier now returned", got, rec)
		same(t, w.name+" with an earlier now stored", get(t, a, rec.ID), rec)
		// A later one moves it, by a step smaller than Touch's interval
		// would: a write is made anyway.
		now := rec.LastSeen.Add(time.Millisecond)
		if got, err = w.write(rec.ID, now); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		rec.LastSeen = now
		same(t, w.name+" with a later now returned", got, rec)
		same(t, w.name+" with a later now stored", get(t, a, rec.ID), rec)
		// Expire sees the new LastSeen: the session is not idle before it.
		if ids, err := b.Expire(ctx, now, 10); err != nil || slices.Contains(ids, rec.ID) {
			t.Fatalf("Expire before the LastSeen %s set: %v, %v; want the session kept", w.name, ids, err)
		}
		if ids, err := b.Expire(ctx, now.Add(time.Millisecond), 10); err != nil || !slices.Contains(ids, rec.ID) {
			t.Fatalf("Expire after the LastSeen %s set: %v, %v; want the session expired", w.name, ids, err)
		}
	}
}

// isURI returns a test for uri.
func isURI(uri string) func(string) bool { return func(u string) bool { return u == uri } }

// drop returns the error of a call that also returns a record.
func drop(_ *sessions.Record, err error) error { return err }

func testConcurrentSubscribe(t *testing.T, open opener) {
	a, b := open(t)
	rec := create(t, a, newRecord("alice"))
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	var want []string
	for i := range 20 {
		uri := fmt.Sprintf("file:///%d", i)
		want = append(want, uri)
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() { errs <- drop(s.Subscribe(context.Background(), rec.ID, uri, rec.LastSeen)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
	}
	rec.Subscriptions = append(rec.Subscriptions, want...)
	same(t, "after 20 Subscribes at once through two handles", get(t, b, rec.ID), rec)
}

func testEnd(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	rec := create(t, a, newRecord("alice"))
	if err := b.End(ctx, rec.ID, "mallory"); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("End by another principal: got %v, want ErrNotFound", err)
	}
	same(t, "a session after End by another principal", get(t, a, rec.ID), rec)
	if err := b.End(ctx, rec.ID, "alice"); err != nil {
		t.Fatalf("End: %v", err)
	}
	if got := get(t, a, rec.ID); !got.Ended {
		t.Fatalf("after End through one handle, the other sees the session live")
	}
	if err := a.End(ctx, rec.ID, "alice"); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("End of an ended session: got %v, want ErrNotFound", err)
	}
	for name, err := range map[string]error{
		"SetLevel":    drop(a.SetLevel(ctx, rec.ID, "debug", epoch.Add(time.Hour))),
		"Subscribe":   drop(a.Subscribe(ctx, rec.ID, "file:///z", epoch.Add(time.Hour))),
		"Unsubscribe": drop(a.Unsubscribe(ctx, rec.ID, "file:///a", epoch.Add(time.Hour))),
	} {
		if !errors.Is(err, sessions.ErrNotFound) {
			t.Errorf("%s of an ended session: got %v, want ErrNotFound", name, err)
		}
	}
	rec.Ended, rec.LastSeen = true, sessions.EndedLastSeen
	same(t, "an ended session after refused writes", get(t, b, rec.ID), rec)
	bare := create(t, a, &sessions.Record{ID: rand.Text(), CreatedAt: epoch, LastSeen: epoch})
	if err := b.End(ctx, bare.ID, ""); err != nil {
		t.Fatalf("End of a session no principal started: %v", err)
	}
}

func testExpire(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	old1, old2, ended, fresh := newRecord("alice"), newRecord("alice"), newRecord("bob"), newRecord("bob")
	ended.LastSeen = epoch.Add(-time.Hour)
	fresh.LastSeen = epoch.Add(time.Hour)
	for _, r := range []*sessions.Record{old1, old2, ended, fresh} {
		create(t, a, r)
	}
	if err := a.End(ctx, ended.ID, ended.Principal); err != nil {
		t.Fatalf("End: %v", err)
	}
	// A touch moves a session out of reach of the cutoff.
	touched := create(t, a, newRecord("carol"))
	if _, err := a.Touch(ctx, touched.ID, epoch.Add(2*time.Hour), time.Minute); err != nil {
		t.Fatalf("Touch: %v", err)
	}
	cutoff := epoch.Add(time.Minute)
	first, err := b.Expire(ctx, cutoff, 2)
	if err != nil {
		t.Fatalf("Expire: %v", err)
	}
	if len(first) != 2 {
		t.Fatalf("Expire with limit 2 returned %v", first)
	}
	rest, err := b.Expire(ctx, cutoff, 10)
	if err != nil {
		t.Fatalf("Expire: %v", err)
	}
	got := append(first, rest...)
	slices.Sort(got)
	want := []string{old1.ID, old2.ID, ended.ID}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Expire deleted %v, want %v (the idle sessions, ended or not)", got, want)
	}
	for _, id := range want {
		if _, err := a.Get(ctx, id); !errors.Is(err, sessions.ErrNotFound) {
			t.Errorf("Get of expired session %s: got %v, want ErrNotFound", id, err)
		}
	}
	get(t, a, fresh.ID)
	get(t, a, touched.ID)
	if again, err := b.Expire(ctx, cutoff, 10); err != nil || len(again) != 0 {
		t.Fatalf("Expire with nothing idle: %v, %v", again, err)
	}
}

// testExpireEnded checks that End leaves a tombstone that
// Expire(ExpireEndedBefore) deletes, with no live session, however long
// idle.
func testExpireEnded(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	live, ended := newRecord("alice"), newRecord("alice")
	live.CreatedAt, live.LastSeen = time.Unix(1, 0), time.Unix(1, 0) // idle since 1970
	create(t, a, live)
	create(t, a, ended)
	if err := b.End(ctx, ended.ID, ended.Principal); err != nil {
		t.Fatalf("End: %v", err)
	}
	got, err := a.Expire(ctx, sessions.ExpireEndedBefore, 10)
	if err != nil {
		t.Fatalf("Expire: %v", err)
	}
	if !slices.Equal(got, []string{ended.ID}) {
		t.Fatalf("Expire(ExpireEndedBefore) deleted %v, want the ended session %s alone", got, ended.ID)
	}
	get(t, b, live.ID)
}

func testStateKey(t *testing.T, open opener) {
	a, b := open(t)
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	errs := make([]error, len(keys))
	for i := range keys {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() { keys[i], errs[i] = s.StateKey(context.Background()) })
	}
	wg.Wait()
	for i, k := range keys {
		if errs[i] != nil {
			t.Fatalf("StateKey: %v", errs[i])
		}
		if len(k) < 32 {
			t.Fatalf("StateKey returned %d bytes, want at least 32", len(k))
		}
		if !bytes.Equal(k, keys[0]) {
			t.Fatalf("StateKey calls racing through two handles returned different keys")
		}
	}
	keys[0][0] ^= 0xff
	if again, _ := b.StateKey(context.Background()); !bytes.Equal(again, keys[1]) {
		t.Fatalf("changing a returned key changed the stored one")
	}
}

func testCancelled(t *testing.T, open opener) {
	a, _ := open(t)
	rec := create(t, a, newRecord("alice"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, err := range map[string]error{
		"Create":      a.Create(ctx, newRecord("bob")),
		"Get":         func() error { _, err := a.Get(ctx, rec.ID); return err }(),
		"Touch":       func() error { _, err := a.Touch(ctx, rec.ID, epoch, time.Second); return err }(),
		"SetLevel":    drop(a.SetLevel(ctx, rec.ID, "debug", epoch)),
		"Subscribe":   drop(a.Subscribe(ctx, rec.ID, "file:///z", epoch)),
		"Unsubscribe": drop(a.Unsubscribe(ctx, rec.ID, "file:///a", epoch)),
		"End":         a.End(ctx, rec.ID, rec.Principal),
		"Expire":      func() error { _, err := a.Expire(ctx, epoch.Add(time.Hour), 10); return err }(),
		"StateKey":    func() error { _, err := a.StateKey(ctx); return err }(),
		"Subscribers": func() error { _, err := a.Subscribers(ctx, "file:///a", "", 10); return err }(),
	} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: got %v, want context.Canceled", name, err)
		}
	}
	same(t, "after calls with a cancelled context", get(t, a, rec.ID), rec)
}

// subscribers returns every ID Subscribers lists for uri, a page of limit
// at a time, failing the test if the pages are out of order.
func subscribers(t *testing.T, s sessions.Store, uri string, limit int) []string {
	t.Helper()
	var all []string
	after := ""
	for {
		page, err := s.Subscribers(context.Background(), uri, after, limit)
		if err != nil {
			t.Fatalf("Subscribers(%s, after %q): %v", uri, after, err)
		}
		if len(page) > limit {
			t.Fatalf("Subscribers(%s) with limit %d returned %d IDs", uri, limit, len(page))
		}
		for _, id := range page {
			if id <= after {
				t.Fatalf("Subscribers(%s) returned %q after %q: want IDs in byte order, each after the last", uri, id, after)
			}
			after = id
		}
		all = append(all, page...)
		if len(page) < limit {
			return all
		}
	}
}

// sameIDs fails the test unless got and want hold the same IDs.
func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("%s: Subscribers listed %v, want %v", what, got, want)
	}
}

func testSubscribers(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	// newRecord's sessions are subscribed to file:///a and file:///b.
	s1, s2, s3 := create(t, a, newRecord("alice")), create(t, a, newRecord("bob")), create(t, a, newRecord("carol"))
	sameIDs(t, "after Create", subscribers(t, b, "file:///a", 10), []string{s1.ID, s2.ID, s3.ID})
	sameIDs(t, "a URI nobody subscribed to", subscribers(t, b, "file:///none", 10), nil)
	for _, step := range []struct {
		sub     bool
		id, uri string
	}{{true, s1.ID, "file:///c"}, {true, s1.ID, "file:///c"}, {true, s3.ID, "file:///c"}, {false, s2.ID, "file:///a"}, {false, s2.ID, "file:///never"}} {
		var err error
		if step.sub {
			_, err = a.Subscribe(ctx, step.id, step.uri, epoch)
		} else {
			_, err = a.Unsubscribe(ctx, step.id, step.uri, epoch)
		}
		if err != nil {
			t.Fatalf("subscribe %v %s: %v", step.sub, step.uri, err)
		}
	}
	sameIDs(t, "after Subscribe (twice for one) and Unsubscribe", subscribers(t, b, "file:///c", 10), []string{s1.ID, s3.ID})
	sameIDs(t, "after Unsubscribe", subscribers(t, b, "file:///a", 10), []string{s1.ID, s3.ID})
	// A refused write lists nobody.
	if _, err := b.Subscribe(ctx, rand.Text(), "file:///c", epoch); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("Subscribe of a missing session: %v", err)
	}
	// An ended session is no one's subscriber, though its record keeps
	// what it had.
	if err := b.End(ctx, s1.ID, s1.Principal); err != nil {
		t.Fatalf("End: %v", err)
	}
	if _, err := a.Subscribe(ctx, s1.ID, "file:///d", epoch); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("Subscribe of an ended session: %v", err)
	}
	sameIDs(t, "after End", subscribers(t, b, "file:///c", 10), []string{s3.ID})
	sameIDs(t, "a URI only an ended session subscribed to", subscribers(t, b, "file:///d", 10), nil)
	if got := get(t, a, s1.ID); len(got.Subscriptions) != 3 {
		t.Fatalf("End changed the session's subscriptions to %v", got.Subscriptions)
	}
	// Expired sessions, ended or not, are gone from the index.
	if ids, err := a.Expire(ctx, epoch.Add(time.Minute), 10); err != nil || len(ids) != 3 {
		t.Fatalf("Expire: %v, %v; want the 3 sessions", ids, err)
	}
	for _, uri := range []string{"file:///a", "file:///b", "file:///c"} {
		sameIDs(t, "after Expire", subscribers(t, b, uri, 10), nil)
	}
	// A new session with an expired one's URI is listed alone.
	s4 := create(t, b, newRecord("dave"))
	sameIDs(t, "a session created after Expire", subscribers(t, a, "file:///b", 10), []string{s4.ID})
}

func testSubscriberPages(t *testing.T, open opener) {
	a, b := open(t)
	ctx := context.Background()
	const uri = "https://example.com/shared?x=1&y=2"
	var want []string
	for i := range 25 {
		rec := newRecord("alice")
		rec.Subscriptions = nil
		if i%5 == 0 {
			rec.Subscriptions = []string{uri} // some from Create, the others from Subscribe
		}
		create(t, a, rec)
		if i%5 != 0 {
			if _, err := b.Subscribe(ctx, rec.ID, uri, epoch); err != nil {
				t.Fatalf("Subscribe: %v", err)
			}
		}
		want = append(want, rec.ID)
	}
	for _, limit := range []int{1, 7, 25, 100} {
		sameIDs(t, fmt.Sprintf("pages of %d", limit), subscribers(t, a, uri, limit), want)
	}
	// The last ID of a page still leads on when its session unsubscribed
	// or ended meanwhile.
	slices.Sort(want)
	first, err := a.Subscribers(ctx, uri, "", 10)
	if err != nil || !slices.Equal(first, want[:10]) {
		t.Fatalf("first page of 10: %v, %v; want %v", first, err, want[:10])
	}
	if _, err := b.Unsubscribe(ctx, want[9], uri, epoch); err != nil {
		t.Fatalf("Unsubscribe: %v", err)
	}
	if err := b.End(ctx, want[10], "alice"); err != nil {
		t.Fatalf("End: %v", err)
	}
	next, err := a.Subscribers(ctx, uri, want[9], 10)
	if err != nil || !slices.Equal(next, want[11:21]) {
		t.Fatalf("the page after an unsubscribed session: %v, %v; want %v", next, err, want[11:21])
	}
	if none, err := a.Subscribers(ctx, uri, want[24], 10); err != nil || len(none) != 0 {
		t.Fatalf("the page after the last subscriber: %v, %v; want none", none, err)
	}
}

func testConcurrentSubscribers(t *testing.T, open opener) {
	a, b := open(t)
	const uri = "file:///busy"
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	var want []string
	for i := range 20 {
		rec := create(t, a, newRecord("alice"))
		want = append(want, rec.ID)
		for j, s := range []sessions.Store{a, b} {
			// Each session subscribes through both handles at once, and
			// half of them also to another URI.
			other := fmt.Sprintf("file:///%d", j)
			wg.Go(func() {
				errs <- drop(s.Subscribe(context.Background(), rec.ID, uri, epoch))
				if i%2 == 0 {
					errs <- drop(s.Subscribe(context.Background(), rec.ID, other, epoch))
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
	}
	sameIDs(t, "after 20 sessions subscribed at once through two handles", subscribers(t, b, uri, 8), want)
	for _, id := range want {
		got := get(t, a, id)
		if n := len(slices.DeleteFunc(slices.Clone(got.Subscriptions), func(u string) bool { return u != uri })); n != 1 {
			t.Fatalf("session %s lists %s twice: %v", id, uri, got.Subscriptions)
		}
	}
}

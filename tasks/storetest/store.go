package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// TestStore runs the Store contract against fresh stores from open, one per
// subtest.
func TestStore(t *testing.T, open func(t *testing.T) tasks.Store) {
	runStore(t, func(t *testing.T) (tasks.Store, tasks.Store) {
		s := open(t)
		return s, s
	})
}

// TestStorePair runs the Store contract with two handles on one fresh
// backing store per subtest, standing for two instances: writes go through
// one and reads through the other, and racing writers use both.
func TestStorePair(t *testing.T, open func(t *testing.T) (a, b tasks.Store)) {
	runStore(t, open)
}

// pairOpener opens two handles on one fresh store.
type pairOpener func(t *testing.T) (a, b tasks.Store)

func runStore(t *testing.T, open pairOpener) {
	tests := []struct {
		name string
		fn   func(*testing.T, pairOpener)
	}{
		{"CreateIsVisibleAtOnce", testCreateVisible},
		{"CreateRejectsDuplicateID", testCreateDuplicate},
		{"CreateRejectsInvalidRecords", testCreateInvalid},
		{"MissingTaskIsNotFound", testMissing},
		{"RecordsAreCopies", testCopies},
		{"UpdateIsCompareAndSwap", testCAS},
		{"UpdateKeepsIdentity", testIdentity},
		{"StateMachine", testStateMachine},
		{"OutcomeFitsStatus", testOutcome},
		{"LateCancelNeverOverwritesResult", testLateCancel},
		{"LateResultNeverOverwritesCancel", testLateResult},
		{"RacingTerminalWritesHaveOneWinner", testTerminalRace},
		{"InputKeysAndAnswers", testInputs},
		{"Delete", testDelete},
		{"ListByPrincipal", testList},
		{"ListStableUnderConcurrentInserts", testListInserts},
		{"ListSkipsDeletedRecords", testListDeletes},
		{"Quota", testQuota},
		{"Expired", testExpired},
		{"DeleteExpired", testDeleteExpired},
		{"LeaseExpired", testLeaseExpired},
		{"RenewLeases", testRenewLeases},
		{"CancelledContext", testCancelledContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

func testCreateVisible(t *testing.T, open pairOpener) {
	a, b := open(t)
	want := newRecord("alice")
	create(t, a, want)
	if want.Version != 1 {
		t.Fatalf("Create set Version %d, want 1", want.Version)
	}
	sameRecord(t, get(t, b, want.ID), want)
}

func testCreateDuplicate(t *testing.T, open pairOpener) {
	a, b := open(t)
	rec := create(t, a, newRecord("alice"))
	dup := newRecord("bob")
	dup.ID = rec.ID
	if err := b.Create(context.Background(), dup, tasks.Quota{}); !errors.Is(err, tasks.ErrExists) {
		t.Fatalf("Create with a taken ID: got %v, want ErrExists", err)
	}
	if got := get(t, a, rec.ID); got.Principal != "alice" {
		t.Fatalf("a duplicate Create overwrote the task: principal %q", got.Principal)
	}
}

func testCreateInvalid(t *testing.T, open pairOpener) {
	a, b := open(t)
	cases := map[string]func(*tasks.Record){
		"no ID":           func(r *tasks.Record) { r.ID = "" },
		"not working":     func(r *tasks.Record) { r.Status = tasks.StatusInputRequired },
		"already done":    func(r *tasks.Record) { finish(r, tasks.StatusCompleted) },
		"carrying inputs": func(r *tasks.Record) { r.Inputs = []tasks.Input{{Key: "k", Request: json.RawMessage(`{}`)}} },
	}
	for name, spoil := range cases {
		rec := newRecord("alice")
		spoil(rec)
		if err := a.Create(context.Background(), rec, tasks.Quota{}); !errors.Is(err, tasks.ErrInvalidUpdate) {
			t.Errorf("Create with %s: got %v, want ErrInvalidUpdate", name, err)
		}
		if rec.ID != "" {
			if _, err := b.Get(context.Background(), rec.ID); !errors.Is(err, tasks.ErrNotFound) {
				t.Errorf("Create with %s stored the record anyway (Get: %v)", name, err)
			}
		}
	}
}

func testMissing(t *testing.T, open pairOpener) {
	a, _ := open(t)
	ctx := context.Background()
	rec := newRecord("alice")
	if _, err := a.Get(ctx, rec.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of a missing task: got %v, want ErrNotFound", err)
	}
	rec.Version = 1
	if err := a.Update(ctx, rec); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Update of a missing task: got %v, want ErrNotFound", err)
	}
	if err := a.Delete(ctx, rec.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Delete of a missing task: got %v, want ErrNotFound", err)
	}
}

func testCopies(t *testing.T, open pairOpener) {
	a, b := open(t)
	rec := create(t, a, newRecord("alice"))
	want := rec.Clone()
	rec.Params[0] = 'X'
	rec.StatusMessage = "changed after Create"
	got := get(t, b, rec.ID)
	sameRecord(t, got, want)
	got.Params[0] = 'Y'
	got.Owner = "changed after Get"
	sameRecord(t, get(t, b, rec.ID), want)

	next := get(t, a, rec.ID)
	next.Inputs = []tasks.Input{{Key: "k", Request: json.RawMessage(`{"method":"roots/list"}`)}}
	update(t, a, next)
	next.Inputs[0].Request[2] = 'X'
	if got := get(t, b, rec.ID); string(got.Inputs[0].Request) != `{"method":"roots/list"}` {
		t.Fatalf("changing a record after Update changed the stored input: %s", got.Inputs[0].Request)
	}
}

func testCAS(t *testing.T, open pairOpener) {
	a, b := open(t)
	rec := create(t, a, newRecord("alice"))
	first := get(t, a, rec.ID)
	second := get(t, b, rec.ID)

	first.StatusMessage = "first writer"
	update(t, a, first)
	if first.Version != 2 {
		t.Fatalf("Update left Version %d, want 2", first.Version)
	}
	second.StatusMessage = "second writer, stale"
	if err := b.Update(context.Background(), second); !errors.Is(err, tasks.ErrConflict) {
		t.Fatalf("Update based on an old version: got %v, want ErrConflict", err)
	}
	got := get(t, b, rec.ID)
	if got.StatusMessage != "first writer" || got.Version != 2 {
		t.Fatalf("after a conflict the store holds %q at version %d, want %q at 2", got.StatusMessage, got.Version, "first writer")
	}
	got.StatusMessage = "second writer, fresh"
	update(t, b, got)
	if got.Version != 3 {
		t.Fatalf("second Update left Version %d, want 3", got.Version)
	}
	sameRecord(t, get(t, a, rec.ID), got)
}

func testIdentity(t *testing.T, open pairOpener) {
	a, b := open(t)
	want := create(t, a, newRecord("alice"))
	next := get(t, a, want.ID)
	next.Principal = "mallory"
	next.Method = "sampling/createMessage"
	next.Name = "other"
	next.Params = json.RawMessage(`{"evil":true}`)
	next.CreatedAt = epoch.Add(-time.Hour)
	next.Policy = tasks.Policy{}
	next.StatusMessage = "still alice's"
	update(t, a, next)
	got := get(t, b, want.ID)
	if got.Principal != want.Principal || got.Method != want.Method || got.Name != want.Name ||
		string(got.Params) != string(want.Params) || !got.CreatedAt.Equal(want.CreatedAt) || got.Policy != want.Policy {
		t.Fatalf("Update rewrote identity fields: got %+v", got)
	}
	if got.StatusMessage != "still alice's" {
		t.Fatalf("Update lost the mutable fields: status message %q", got.StatusMessage)
	}
}

// reach creates a record and moves it to status through legal steps.
func reach(t *testing.T, s tasks.Store, status tasks.Status) *tasks.Record {
	t.Helper()
	return get(t, s, createIn(t, s, newRecord("alice"), status).ID)
}

func testStateMachine(t *testing.T, open pairOpener) {
	a, b := open(t)
	all := []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusCompleted,
		tasks.StatusFailed, tasks.StatusCancelled, "paused"}
	for _, from := range all[:5] {
		for _, to := range all {
			cur := reach(t, a, from)
			next := cur.Clone()
			if to.Valid() && to.Terminal() {
				finish(next, to)
			} else {
				next.Status = to
			}
			err := b.Update(context.Background(), next)
			var term *tasks.TerminalError
			switch {
			case from.Terminal():
				if !errors.As(err, &term) || term.Status != from || term.TaskID != cur.ID {
					t.Errorf("%s → %s: got %v, want a *TerminalError for %s", from, to, err, from)
				}
			case tasks.CanTransition(from, to):
				if err != nil {
					t.Errorf("%s → %s is legal but Update failed: %v", from, to, err)
				}
			default:
				if !errors.Is(err, tasks.ErrInvalidUpdate) {
					t.Errorf("%s → %s is illegal: got %v, want ErrInvalidUpdate", from, to, err)
				}
			}
			if err != nil {
				if got := get(t, a, cur.ID); got.Status != from || got.Version != cur.Version {
					t.Errorf("%s → %s was refused yet the store changed to %s (version %d)", from, to, got.Status, got.Version)
				}
			}
		}
	}
}

func testOutcome(t *testing.T, open pairOpener) {
	a, _ := open(t)
	cases := map[string]func(*tasks.Record){
		"completed without result": func(r *tasks.Record) { finish(r, tasks.StatusCompleted); r.Result = nil },
		"completed with an error": func(r *tasks.Record) {
			finish(r, tasks.StatusFailed)
			r.Status = tasks.StatusCompleted
			r.Result = json.RawMessage(`{}`)
		},
		"failed without error": func(r *tasks.Record) { finish(r, tasks.StatusFailed); r.Error = nil },
		"failed with a result": func(r *tasks.Record) {
			finish(r, tasks.StatusFailed)
			r.Result = json.RawMessage(`{}`)
		},
		"failed marked isError": func(r *tasks.Record) { finish(r, tasks.StatusFailed); r.IsError = true },
		"working with a result": func(r *tasks.Record) { r.Result = json.RawMessage(`{}`) },
		"cancelled with an error": func(r *tasks.Record) {
			finish(r, tasks.StatusFailed)
			r.Status = tasks.StatusCancelled
		},
	}
	for name, spoil := range cases {
		cur := reach(t, a, tasks.StatusWorking)
		spoil(cur)
		if err := a.Update(context.Background(), cur); !errors.Is(err, tasks.ErrInvalidUpdate) {
			t.Errorf("Update %s: got %v, want ErrInvalidUpdate", name, err)
		}
	}
}

func testLateCancel(t *testing.T, open pairOpener) {
	a, b := open(t)
	done := reach(t, a, tasks.StatusCompleted)
	late := done.Clone()
	finish(late, tasks.StatusCancelled)
	var term *tasks.TerminalError
	if err := b.Update(context.Background(), late); !errors.As(err, &term) || term.Status != tasks.StatusCompleted {
		t.Fatalf("cancel after the result: got %v, want a *TerminalError for completed", err)
	}
	sameRecord(t, get(t, b, done.ID), done)
}

func testLateResult(t *testing.T, open pairOpener) {
	a, b := open(t)
	cancelled := reach(t, a, tasks.StatusCancelled)
	for _, status := range []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed} {
		late := cancelled.Clone()
		finish(late, status)
		var term *tasks.TerminalError
		if err := b.Update(context.Background(), late); !errors.As(err, &term) || term.Status != tasks.StatusCancelled {
			t.Fatalf("%s after the cancel: got %v, want a *TerminalError for cancelled", status, err)
		}
	}
	sameRecord(t, get(t, b, cancelled.ID), cancelled)
}

func testTerminalRace(t *testing.T, open pairOpener) {
	a, b := open(t)
	stores := []tasks.Store{a, b}
	statuses := []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusCancelled}
	for round := range 10 {
		rec := create(t, a, newRecord("alice"))
		const writers = 24
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				s := stores[i%2]
				<-start
				for {
					cur, err := s.Get(context.Background(), rec.ID)
					if err != nil {
						errs[i] = err
						return
					}
					finish(cur, statuses[i%3])
					cur.StatusMessage = fmt.Sprint("writer ", i)
					err = s.Update(context.Background(), cur)
					if !errors.Is(err, tasks.ErrConflict) {
						errs[i] = err
						return
					}
				}
			})
		}
		close(start)
		wg.Wait()
		final := get(t, a, rec.ID)
		winners := 0
		for i, err := range errs {
			var term *tasks.TerminalError
			switch {
			case err == nil:
				winners++
				if final.StatusMessage != fmt.Sprint("writer ", i) || final.Status != statuses[i%3] {
					t.Fatalf("round %d: writer %d won but the store holds %q, %s", round, i, final.StatusMessage, final.Status)
				}
			case errors.As(err, &term):
				if term.Status != final.Status {
					t.Fatalf("round %d: writer %d lost to %s but was told %s", round, i, final.Status, term.Status)
				}
			default:
				t.Fatalf("round %d: writer %d: got %v, want success or a *TerminalError", round, i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d terminal writes succeeded, want exactly 1", round, winners)
		}
	}
}

func testInputs(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	q1 := json.RawMessage(`{"method":"elicitation/create","params":{"message":"Delete?"}}`)
	q2 := json.RawMessage(`{"method":"sampling/createMessage","params":{"maxTokens":5}}`)
	q3 := json.RawMessage(`{"method":"roots/list"}`)
	r1 := json.RawMessage(`{"action":"accept","content":{"confirm":true}}`)
	r2 := json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"hi"}}`)

	rec := create(t, a, newRecord("alice"))
	cur := get(t, a, rec.ID)
	cur.Status = tasks.StatusInputRequired
	cur.Inputs = []tasks.Input{{Key: "input-1", Request: q1}, {Key: "input-2", Request: q2}}
	update(t, a, cur)

	cur = get(t, b, rec.ID)
	if len(cur.Inputs) != 2 || cur.Inputs[0].Answered() || cur.Inputs[1].Answered() || !cur.Outstanding() {
		t.Fatalf("after recording two requests the store holds %+v", cur.Inputs)
	}
	cur.Inputs[0].Response = r1
	update(t, b, cur)

	refused := map[string]func(*tasks.Record){
		"a key used twice":        func(r *tasks.Record) { r.Inputs = append(r.Inputs, tasks.Input{Key: "input-1", Request: q3}) },
		"an empty key":            func(r *tasks.Record) { r.Inputs = append(r.Inputs, tasks.Input{Request: q3}) },
		"a rewritten request":     func(r *tasks.Record) { r.Inputs[1].Request = q3 },
		"a renamed key":           func(r *tasks.Record) { r.Inputs[1].Key = "input-9" },
		"a removed request":       func(r *tasks.Record) { r.Inputs = r.Inputs[:1] },
		"a changed answer":        func(r *tasks.Record) { r.Inputs[0].Response = r2 },
		"an answer taken back":    func(r *tasks.Record) { r.Inputs[0].Response = nil },
		"requests in a new order": func(r *tasks.Record) { r.Inputs[0], r.Inputs[1] = r.Inputs[1], r.Inputs[0] },
	}
	for name, spoil := range refused {
		next := get(t, a, rec.ID)
		spoil(next)
		if err := a.Update(ctx, next); !errors.Is(err, tasks.ErrInvalidUpdate) {
			t.Errorf("Update with %s: got %v, want ErrInvalidUpdate", name, err)
		}
	}

	cur = get(t, a, rec.ID)
	cur.Inputs = append(cur.Inputs, tasks.Input{Key: "input-3", Request: q3})
	cur.Inputs[1].Response = r2
	update(t, a, cur)
	finish(cur, tasks.StatusCompleted)
	update(t, a, cur)

	got := get(t, b, rec.ID)
	want := []tasks.Input{{Key: "input-1", Request: q1, Response: r1}, {Key: "input-2", Request: q2, Response: r2}, {Key: "input-3", Request: q3}}
	if len(got.Inputs) != len(want) {
		t.Fatalf("finished task holds %d inputs, want %d", len(got.Inputs), len(want))
	}
	for i, in := range got.Inputs {
		if in.Key != want[i].Key || string(in.Request) != string(want[i].Request) || string(in.Response) != string(want[i].Response) {
			t.Fatalf("input %d of the finished task is %s %s → %s, want %s %s → %s", i,
				in.Key, in.Request, in.Response, want[i].Key, want[i].Request, want[i].Response)
		}
	}
}

func testDelete(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	gone := newRecord("alice")
	gone.ExpiresAt = epoch
	create(t, a, gone)
	kept := create(t, a, newRecord("alice"))
	if err := a.Delete(ctx, gone.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := b.Get(ctx, gone.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get after Delete: got %v, want ErrNotFound", err)
	}
	if err := b.Delete(ctx, gone.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("second Delete: got %v, want ErrNotFound", err)
	}
	recs, _, err := b.List(ctx, "alice", "", 10)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got := ids(recs); len(got) != 1 || !got[kept.ID] {
		t.Fatalf("List after Delete returned %v, want only %s", got, kept.ID)
	}
	expired, err := b.Expired(ctx, epoch.Add(2*time.Hour), 10)
	if err != nil {
		t.Fatalf("Expired: %v", err)
	}
	sameIDs(t, "Expired after Delete", expired, kept.ID)
	leased, err := b.LeaseExpired(ctx, epoch.Add(time.Hour), 10)
	if err != nil {
		t.Fatalf("LeaseExpired: %v", err)
	}
	sameIDs(t, "LeaseExpired after Delete", leased, kept.ID)
}

// listAll pages through the principal's tasks with the page limit, calling
// between after each page, and returns every record in order.
func listAll(t *testing.T, s tasks.Store, principal string, limit int, between func()) []*tasks.Record {
	t.Helper()
	var all []*tasks.Record
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatalf("List of %s never ended", principal)
		}
		recs, next, err := s.List(context.Background(), principal, cursor, limit)
		if err != nil {
			t.Fatalf("List(%s, cursor %q): %v", principal, cursor, err)
		}
		if len(recs) > limit {
			t.Fatalf("List returned %d records, more than the limit %d", len(recs), limit)
		}
		all = append(all, recs...)
		if next == "" {
			return all
		}
		cursor = next
		if between != nil {
			between()
		}
	}
}

func testList(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	want := map[string]bool{}
	for i := range 23 {
		want[create(t, a, newRecord("alice")).ID] = true
		if i%3 == 0 {
			create(t, a, newRecord("bob"))
		}
	}
	for _, limit := range []int{1, 5, 23, 100} {
		all := listAll(t, b, "alice", limit, nil)
		got := map[string]bool{}
		for _, r := range all {
			if r.Principal != "alice" {
				t.Fatalf("List for alice returned %s's task %s", r.Principal, r.ID)
			}
			if got[r.ID] {
				t.Fatalf("List with limit %d returned %s twice", limit, r.ID)
			}
			got[r.ID] = true
		}
		if len(got) != len(want) {
			t.Fatalf("List with limit %d returned %d of alice's %d tasks", limit, len(got), len(want))
		}
	}
	recs, next, err := b.List(ctx, "alice", "", 23)
	if err != nil || len(recs) != 23 || next != "" {
		t.Fatalf("a page holding the last task: %d records, next %q, err %v; want 23, \"\", nil", len(recs), next, err)
	}
	if bob := listAll(t, b, "bob", 3, nil); len(bob) != 8 {
		t.Fatalf("List for bob returned %d tasks, want 8", len(bob))
	}
	if recs, next, err := b.List(ctx, "carol", "", 10); err != nil || len(recs) != 0 || next != "" {
		t.Fatalf("List for a principal without tasks: %d records, next %q, err %v", len(recs), next, err)
	}
	for _, bad := range []string{"not-a-cursor", "%%%", "\x00"} {
		if _, _, err := b.List(ctx, "alice", bad, 10); !errors.Is(err, tasks.ErrInvalidCursor) {
			t.Errorf("List with cursor %q: got %v, want ErrInvalidCursor", bad, err)
		}
	}
}

// concurrentInserts is how many tasks testListInserts creates while it
// pages, beside the three it adds after each page.
const concurrentInserts = 200

func testListInserts(t *testing.T, open pairOpener) {
	a, b := open(t)
	before := map[string]bool{}
	for range 40 {
		before[create(t, a, newRecord("alice")).ID] = true
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var insertErr error
	wg.Go(func() {
		// Bounded, so that on a starved CPU an inserter that outpaces
		// the pager cannot keep appending behind its cursor for ever.
		for i := range concurrentInserts {
			select {
			case <-stop:
				return
			default:
			}
			principal := "alice"
			if i%2 == 1 {
				principal = "bob"
			}
			if err := a.Create(context.Background(), newRecord(principal), tasks.Quota{}); err != nil {
				insertErr = err
				return
			}
		}
	})
	all := listAll(t, b, "alice", 7, func() {
		for range 3 {
			create(t, a, newRecord("alice"))
		}
	})
	close(stop)
	wg.Wait()
	if insertErr != nil {
		t.Fatalf("concurrent Create: %v", insertErr)
	}
	seen := map[string]bool{}
	for _, r := range all {
		if r.Principal != "alice" {
			t.Fatalf("List for alice returned %s's task", r.Principal)
		}
		if seen[r.ID] {
			t.Fatalf("List returned %s twice while tasks were being inserted", r.ID)
		}
		seen[r.ID] = true
	}
	for id := range before {
		if !seen[id] {
			t.Fatalf("List skipped %s, which existed before paging began", id)
		}
	}
}

func testListDeletes(t *testing.T, open pairOpener) {
	a, b := open(t)
	var order []string
	for range 30 {
		order = append(order, create(t, a, newRecord("alice")).ID)
	}
	deleted := map[string]bool{}
	seen := map[string]bool{}
	cursor := ""
	for {
		recs, next, err := b.List(context.Background(), "alice", cursor, 4)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, r := range recs {
			if deleted[r.ID] {
				t.Fatalf("List returned %s after it was deleted", r.ID)
			}
			if seen[r.ID] {
				t.Fatalf("List returned %s twice", r.ID)
			}
			seen[r.ID] = true
		}
		if next == "" {
			break
		}
		cursor = next
		// Delete two tasks not yet returned, and one already returned.
		n := 0
		for _, id := range order {
			if !seen[id] && !deleted[id] && n < 2 {
				if err := a.Delete(context.Background(), id); err != nil {
					t.Fatalf("Delete: %v", err)
				}
				deleted[id] = true
				n++
			}
		}
		if len(recs) > 0 {
			if err := a.Delete(context.Background(), recs[0].ID); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			deleted[recs[0].ID] = true
		}
	}
	for _, id := range order {
		if !deleted[id] && !seen[id] {
			t.Fatalf("List skipped %s, which was never deleted", id)
		}
	}
}

func testQuota(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	perPrincipal := tasks.Quota{PerPrincipal: 2}
	var alice []*tasks.Record
	for range 2 {
		rec := newRecord("alice")
		if err := a.Create(ctx, rec, perPrincipal); err != nil {
			t.Fatalf("Create within the quota: %v", err)
		}
		alice = append(alice, rec)
	}
	over := newRecord("alice")
	var lim *tasks.LimitError
	if err := b.Create(ctx, over, perPrincipal); !errors.As(err, &lim) || lim.Scope != tasks.LimitPrincipal || lim.Limit != 2 {
		t.Fatalf("Create over the per-principal quota: got %v, want a *LimitError{principal, 2}", err)
	}
	if _, err := a.Get(ctx, over.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("a refused Create left a task behind (Get: %v)", err)
	}
	if err := b.Create(ctx, newRecord("bob"), perPrincipal); err != nil {
		t.Fatalf("another principal's Create hit alice's quota: %v", err)
	}

	// A finished task frees its slot; so does deleting an unfinished one.
	done := get(t, a, alice[0].ID)
	finish(done, tasks.StatusFailed)
	update(t, a, done)
	if err := b.Create(ctx, newRecord("alice"), perPrincipal); err != nil {
		t.Fatalf("Create after a task finished: %v", err)
	}
	if err := b.Create(ctx, newRecord("alice"), perPrincipal); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("Create over the quota again: got %v, want ErrLimit", err)
	}
	if err := a.Delete(ctx, alice[1].ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := b.Create(ctx, newRecord("alice"), perPrincipal); err != nil {
		t.Fatalf("Create after an unfinished task was deleted: %v", err)
	}
	// Deleting a finished task frees nothing more.
	if err := a.Delete(ctx, done.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := b.Create(ctx, newRecord("alice"), perPrincipal); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("deleting a finished task freed a slot: got %v, want ErrLimit", err)
	}

	// Unfinished now: alice 2, bob 1.
	total := tasks.Quota{Total: 4}
	if err := a.Create(ctx, newRecord("carol"), total); err != nil {
		t.Fatalf("Create within the total quota: %v", err)
	}
	if err := b.Create(ctx, newRecord("dave"), total); !errors.As(err, &lim) || lim.Scope != tasks.LimitTotal || lim.Limit != 4 {
		t.Fatalf("Create over the total quota: got %v, want a *LimitError{total, 4}", err)
	}
	if recs, _, _ := a.List(ctx, "dave", "", 10); len(recs) != 0 {
		t.Fatalf("a refused Create left %d tasks for dave", len(recs))
	}
}

func testExpired(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	at := func(d time.Duration, status tasks.Status) string {
		rec := newRecord("alice")
		rec.ExpiresAt = epoch.Add(d)
		if d == 0 {
			rec.ExpiresAt = time.Time{}
		}
		create(t, a, rec)
		if status != tasks.StatusWorking {
			cur := get(t, a, rec.ID)
			finish(cur, status)
			update(t, a, cur)
		}
		return rec.ID
	}
	one := at(time.Minute, tasks.StatusWorking)
	two := at(2*time.Minute, tasks.StatusInputRequired)
	at(0, tasks.StatusWorking) // never expires
	three := at(3*time.Minute, tasks.StatusCompleted)
	gone := at(time.Minute, tasks.StatusWorking)
	if err := a.Delete(ctx, gone); err != nil {
		t.Fatalf("Delete: %v", err)
	}

	check := func(now time.Duration, want ...string) {
		t.Helper()
		got, err := b.Expired(ctx, epoch.Add(now), 100)
		if err != nil {
			t.Fatalf("Expired: %v", err)
		}
		sameIDs(t, fmt.Sprintf("Expired at +%v", now), got, want...)
	}
	check(0)
	check(time.Minute - time.Millisecond)
	check(time.Minute, one)
	check(2*time.Minute, one, two)
	check(time.Hour, one, two, three)

	got, err := b.Expired(ctx, epoch.Add(time.Hour), 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("Expired with limit 2: %v, %v; want 2 IDs", got, err)
	}
}

func testLeaseExpired(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	leased := func(owner string, lease time.Duration, status tasks.Status) string {
		rec := newRecord("alice")
		rec.Owner = owner
		rec.LeaseExpiresAt = epoch.Add(lease)
		if lease == 0 {
			rec.LeaseExpiresAt = time.Time{}
		}
		return createIn(t, a, rec, status).ID
	}
	first := leased("instance-a", 10*time.Second, tasks.StatusWorking)
	second := leased("instance-b", 20*time.Second, tasks.StatusInputRequired)
	leased("", 5*time.Second, tasks.StatusWorking)                  // nobody's
	leased("instance-a", 5*time.Second, tasks.StatusCompleted)      // finished
	leased("instance-a", 5*time.Second, tasks.StatusCancelled)      // finished
	leased("instance-a", 0, tasks.StatusWorking)                    // no lease time
	leased("instance-a", 10*time.Minute, tasks.StatusInputRequired) // far off

	check := func(now time.Duration, want ...string) {
		t.Helper()
		got, err := b.LeaseExpired(ctx, epoch.Add(now), 100)
		if err != nil {
			t.Fatalf("LeaseExpired: %v", err)
		}
		sameIDs(t, fmt.Sprintf("LeaseExpired at +%v", now), got, want...)
	}
	check(9 * time.Second)
	check(10*time.Second, first)
	check(30*time.Second, first, second)

	renewed := get(t, a, first)
	renewed.LeaseExpiresAt = epoch.Add(time.Minute)
	update(t, a, renewed)
	check(30*time.Second, second)

	taken := get(t, a, second)
	taken.Owner = "instance-c"
	taken.LeaseExpiresAt = epoch.Add(40 * time.Second)
	update(t, a, taken)
	check(30 * time.Second)
	check(50*time.Second, second)

	done := get(t, a, second)
	finish(done, tasks.StatusFailed)
	update(t, a, done)
	check(50 * time.Second)

	if got, err := b.LeaseExpired(ctx, epoch.Add(time.Hour), 1); err != nil || len(got) != 1 {
		t.Fatalf("LeaseExpired with limit 1: %v, %v; want 1 ID", got, err)
	}
}

func testCancelledContext(t *testing.T, open pairOpener) {
	a, _ := open(t)
	rec := create(t, a, newRecord("alice"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	next := get(t, a, rec.ID)
	next.StatusMessage = "never written"
	_, getErr := a.Get(ctx, rec.ID)
	_, _, listErr := a.List(ctx, "alice", "", 10)
	_, expErr := a.Expired(ctx, epoch, 10)
	_, leaseErr := a.LeaseExpired(ctx, epoch, 10)
	calls := map[string]error{
		"Create":       a.Create(ctx, newRecord("alice"), tasks.Quota{}),
		"Get":          getErr,
		"Update":       a.Update(ctx, next),
		"Delete":       a.Delete(ctx, rec.ID),
		"List":         listErr,
		"Expired":      expErr,
		"LeaseExpired": leaseErr,
	}
	for name, err := range calls {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: got %v, want an error wrapping context.Canceled", name, err)
		}
	}
	if got := get(t, a, rec.ID); got.StatusMessage == "never written" {
		t.Fatalf("Update with a cancelled context wrote anyway")
	}
}

func testDeleteExpired(t *testing.T, open pairOpener) {
	a, b := open(t)
	ctx := context.Background()
	at := func(principal string, d time.Duration, status tasks.Status) *tasks.Record {
		rec := newRecord(principal)
		rec.ExpiresAt = epoch.Add(d)
		if d == 0 {
			rec.ExpiresAt = time.Time{}
		}
		create(t, a, rec)
		if status != tasks.StatusWorking {
			cur := get(t, a, rec.ID)
			finish(cur, status)
			update(t, a, cur)
		}
		rec.Status = status
		return rec
	}
	running := at("alice", time.Minute, tasks.StatusWorking)
	done := at("alice", time.Minute, tasks.StatusCompleted)
	failed := at("bob", 2*time.Minute, tasks.StatusFailed)
	cancelled := at("alice", 3*time.Minute, tasks.StatusCancelled)
	forever := at("alice", 0, tasks.StatusCompleted)

	deleted := func(now time.Duration, limit int) []tasks.DeletedTask {
		t.Helper()
		gone, err := b.DeleteExpired(ctx, epoch.Add(now), limit)
		if err != nil {
			t.Fatalf("DeleteExpired: %v", err)
		}
		return gone
	}
	if gone := deleted(time.Minute-time.Millisecond, 100); len(gone) != 0 {
		t.Fatalf("DeleteExpired before any expiry deleted %v", gone)
	}
	gone := deleted(2*time.Minute, 100)
	want := map[string]tasks.DeletedTask{}
	for _, rec := range []*tasks.Record{done, failed} {
		want[rec.ID] = tasks.DeletedTask{ID: rec.ID, Principal: rec.Principal, Method: rec.Method, Name: rec.Name, Status: rec.Status}
	}
	if len(gone) != len(want) {
		t.Fatalf("DeleteExpired at +2m deleted %v, want the completed and the failed task, %v", gone, want)
	}
	for _, d := range gone {
		if want[d.ID] != d {
			t.Fatalf("DeleteExpired at +2m deleted %+v, want one of %+v", d, want)
		}
	}
	for _, rec := range []*tasks.Record{done, failed} {
		if _, err := a.Get(ctx, rec.ID); !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Get of a deleted expired task: %v, want ErrNotFound", err)
		}
	}
	// The unfinished one stays, for the Runtime to cancel first.
	get(t, a, running.ID)
	expired, err := b.Expired(ctx, epoch.Add(2*time.Minute), 10)
	if err != nil {
		t.Fatalf("Expired: %v", err)
	}
	sameIDs(t, "Expired after DeleteExpired", expired, running.ID)
	recs, _, err := a.List(ctx, "alice", "", 10)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got := ids(recs); len(got) != 3 || !got[running.ID] || !got[cancelled.ID] || !got[forever.ID] {
		t.Fatalf("after DeleteExpired alice lists %v, want the running, cancelled and unexpiring tasks", got)
	}

	// Once cancelled it goes too; the limit holds.
	cur := get(t, a, running.ID)
	finish(cur, tasks.StatusCancelled)
	update(t, a, cur)
	if gone := deleted(time.Hour, 1); len(gone) != 1 {
		t.Fatalf("DeleteExpired with limit 1 deleted %v", gone)
	}
	if gone := deleted(time.Hour, 100); len(gone) != 1 {
		t.Fatalf("the second DeleteExpired deleted %v, want the one left", gone)
	}
	get(t, a, forever.ID)
}

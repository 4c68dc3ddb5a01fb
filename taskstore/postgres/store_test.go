package postgres_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/postgres"
)

func TestStoreContract(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) tasks.Store { return open(t, freshSchema(t)) })
}

// Two Stores on one schema stand for two instances sharing the database.
func TestStorePairContract(t *testing.T) {
	storetest.TestStorePair(t, func(t *testing.T) (tasks.Store, tasks.Store) {
		schema := freshSchema(t)
		return open(t, schema), open(t, schema)
	})
}

func TestExpiryBackstop(t *testing.T) {
	storetest.TestExpiryBackstop(t, func(t *testing.T, grace time.Duration) tasks.Store {
		return open(t, freshSchema(t), postgres.WithExpiryGrace(grace))
	})
}

// Creates racing from two instances hold a quota exactly: the advisory
// locks and the INSERT that counts under them share one implicit
// transaction, the batch's.
func TestRacingCreatesHoldTheQuota(t *testing.T) {
	schema := freshSchema(t)
	stores := []*postgres.Store{open(t, schema), open(t, schema)}
	const racers, limit = 24, 5
	// Both at once: the prelude takes the total's lock and the principal's
	// in one statement, in the order every batch takes them.
	quotas := []tasks.Quota{{Total: limit}, {PerPrincipal: limit}, {Total: limit, PerPrincipal: limit}}
	for _, quota := range quotas {
		errs := make(chan error, racers)
		var start sync.WaitGroup
		start.Add(1)
		for i := range racers {
			go func() {
				start.Wait()
				rec := newTask(fmt.Sprintf("racer-%+v", quota))
				errs <- stores[i%2].Create(context.Background(), rec, quota)
			}()
		}
		start.Done()
		created := 0
		for range racers {
			switch err := <-errs; {
			case err == nil:
				created++
			case !errors.Is(err, tasks.ErrLimit):
				t.Errorf("a racing Create failed with %v, want success or a LimitError", err)
			}
		}
		if created != limit {
			t.Errorf("%d racing Creates under the quota %+v succeeded, want %d", created, quota, limit)
		}
		// Finish them, so the next quota starts from none unfinished.
		for _, s := range stores[:1] {
			expired, err := s.LeaseExpired(context.Background(), time.Now().Add(time.Hour), 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range expired {
				rec, err := s.Get(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				rec.Status, rec.Result = tasks.StatusCompleted, []byte(`{}`)
				if err := s.Update(context.Background(), rec); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// A handler's failure quoting its input (a NUL, bytes that are not
// UTF-8), which PostgreSQL's text cannot hold, is still recorded, with
// U+FFFD in their place: refused, the task stayed working until its lease
// lapsed.
func TestFailureQuotingNULOrInvalidUTF8IsRecorded(t *testing.T) {
	s := open(t, freshSchema(t))
	ctx := context.Background()
	rec := newTask("alice")
	rec.StatusMessage = "reading \"a\x00b\""
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create with a NUL in its status message: %v", err)
	}
	msg := "Task failed: no file \"a\x00b\xff\""
	rec.Status, rec.StatusMessage = tasks.StatusFailed, msg
	rec.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	if err := s.Update(ctx, rec); err != nil {
		t.Fatalf("Update recording the failure: %v", err)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Task failed: no file \"a\uFFFDb\uFFFD\""
	if got.Status != tasks.StatusFailed || got.StatusMessage != want || got.Error == nil || got.Error.Message != want {
		t.Errorf("stored %s %q, error %+v; want failed %q with that error message", got.Status, got.StatusMessage, got.Error, want)
	}
}

// newTask returns a new working task of the principal, leased to an
// instance for a minute.
func newTask(principal string) *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: rand.Text(), Principal: principal, Method: "tools/call", Name: "echo",
		Status: tasks.StatusWorking, CreatedAt: now, UpdatedAt: now, Owner: "a", LeaseExpiresAt: now.Add(time.Minute), Runs: 1}
}

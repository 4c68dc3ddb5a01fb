package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// epoch is the kit's "now": a fixed time with millisecond precision.
var epoch = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// newRecord returns a working record for the principal with every field set.
func newRecord(principal string) *tasks.Record {
	return &tasks.Record{
		ID:             rand.Text(),
		Principal:      principal,
		Method:         "tools/call",
		Name:           "slow_compute",
		Params:         json.RawMessage(`{"name":"slow_compute","arguments":{"seconds":2}}`),
		Policy:         tasks.Policy{Rerun: true, MaxRuns: 2},
		Status:         tasks.StatusWorking,
		StatusMessage:  "starting",
		CreatedAt:      epoch,
		UpdatedAt:      epoch.Add(time.Millisecond),
		ExpiresAt:      epoch.Add(time.Hour),
		PollInterval:   1500 * time.Millisecond,
		Owner:          "instance-a",
		LeaseExpiresAt: epoch.Add(30 * time.Second),
		Runs:           1,
	}
}

// finish gives the record the terminal status with a fitting outcome.
func finish(rec *tasks.Record, status tasks.Status) {
	rec.Status = status
	rec.Result, rec.IsError, rec.Error = nil, false, nil
	switch status {
	case tasks.StatusCompleted:
		rec.Result = json.RawMessage(`{"content":[{"type":"text","text":"done"}],"isError":true}`)
		rec.IsError = true
	case tasks.StatusFailed:
		rec.Error = &jsonrpc.Error{Code: -32603, Message: "boom", Data: json.RawMessage(`{"retry":false}`)}
	}
}

// create stores the record or fails the test.
func create(t *testing.T, s tasks.Store, rec *tasks.Record) *tasks.Record {
	t.Helper()
	if err := s.Create(context.Background(), rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create(%s): %v", rec.ID, err)
	}
	return rec
}

// get reads the record or fails the test.
func get(t *testing.T, s tasks.Store, id string) *tasks.Record {
	t.Helper()
	rec, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return rec
}

// update writes the record or fails the test.
func update(t *testing.T, s tasks.Store, rec *tasks.Record) {
	t.Helper()
	if err := s.Update(context.Background(), rec); err != nil {
		t.Fatalf("Update(%s) to %s: %v", rec.ID, rec.Status, err)
	}
}

// sameRecord fails the test unless got equals want in every field, comparing
// times as instants.
func sameRecord(t *testing.T, got, want *tasks.Record) {
	t.Helper()
	g, w := normal(got), normal(want)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("stored record differs from what was written\n got: %+v\nwant: %+v", g, w)
	}
}

// normal returns a copy with UTC times and empty slices as nil.
func normal(r *tasks.Record) *tasks.Record {
	c := r.Clone()
	for _, p := range []*time.Time{&c.CreatedAt, &c.UpdatedAt, &c.ExpiresAt, &c.LeaseExpiresAt} {
		if p.IsZero() {
			*p = time.Time{}
		} else {
			*p = p.UTC()
		}
	}
	if len(c.Inputs) == 0 {
		c.Inputs = nil
	}
	if c.Error != nil && len(c.Error.Data) == 0 {
		c.Error.Data = nil
	}
	return c
}

// ids returns the set of the records' IDs.
func ids(recs []*tasks.Record) map[string]bool {
	m := make(map[string]bool, len(recs))
	for _, r := range recs {
		m[r.ID] = true
	}
	return m
}

// sameIDs fails the test unless got holds exactly the want IDs.
func sameIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	g := make(map[string]bool, len(got))
	for _, id := range got {
		if g[id] {
			t.Fatalf("%s: ID %s listed twice", what, id)
		}
		g[id] = true
	}
	w := make(map[string]bool, len(want))
	for _, id := range want {
		w[id] = true
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: got IDs %v, want %v", what, got, want)
	}
}

// createIn creates rec in s and brings it to status, and returns it as
// stored.
func createIn(t *testing.T, s tasks.Store, rec *tasks.Record, status tasks.Status) *tasks.Record {
	t.Helper()
	create(t, s, rec)
	if status == tasks.StatusWorking {
		return rec
	}
	cur := get(t, s, rec.ID)
	if status.Terminal() {
		finish(cur, status)
	} else {
		cur.Status = status
	}
	update(t, s, cur)
	return cur
}

package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
	_ "modernc.org/sqlite"
)

// dbPath returns the path of a fresh database file in the test's temporary
// directory.
func dbPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "tasks.db")
}

// open opens a Store on path, closed when the test ends.
func open(t testing.TB, path string, opts ...sqlite.Option) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestStoreContract(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) tasks.Store { return open(t, dbPath(t)) })
}

// Two Stores on one file stand for two processes sharing it.
func TestStorePairContract(t *testing.T) {
	storetest.TestStorePair(t, func(t *testing.T) (tasks.Store, tasks.Store) {
		path := dbPath(t)
		return open(t, path), open(t, path)
	})
}

func TestTasksSurviveARestart(t *testing.T) {
	ctx := context.Background()
	path := dbPath(t)
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	at := time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.UTC)
	done := &tasks.Record{
		ID: "done", Principal: "alice", Method: "tools/call", Name: "compute",
		Params: json.RawMessage(`{"name":"compute", "arguments": {}}`), Policy: tasks.Policy{Rerun: true},
		Status: tasks.StatusWorking, CreatedAt: at, UpdatedAt: at, ExpiresAt: at.Add(time.Hour),
		PollInterval: time.Second, Owner: "a", LeaseExpiresAt: at.Add(30 * time.Second), Runs: 1,
	}
	failed := &tasks.Record{ID: "failed", Principal: "bob", Method: "tools/call", Name: "compute",
		Status: tasks.StatusWorking, CreatedAt: at}
	for _, rec := range []*tasks.Record{done, failed} {
		if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
			t.Fatalf("Create(%s): %v", rec.ID, err)
		}
	}
	done.Inputs = []tasks.Input{{Key: "input-1", Request: json.RawMessage(`{"method":"elicitation/create"}`),
		Response: json.RawMessage(`{"action":"accept"}`)}}
	done.Status, done.Result, done.IsError = tasks.StatusCompleted, json.RawMessage(`{"content":[]}`), false
	failed.Status, failed.Error = tasks.StatusFailed, &jsonrpc.Error{Code: -32603, Message: "boom"}
	for _, rec := range []*tasks.Record{done, failed} {
		if err := s.Update(ctx, rec); err != nil {
			t.Fatalf("Update(%s): %v", rec.ID, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	reopened := open(t, path)
	for _, want := range []*tasks.Record{done, failed} {
		got, err := reopened.Get(ctx, want.ID)
		if err != nil {
			t.Fatalf("Get(%s) after reopening: %v", want.ID, err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Fatalf("after reopening, task %s is\n %s\nwant\n %s", want.ID, g, w)
		}
	}
	// The raw JSON kept its spacing, byte for byte, and times their nanoseconds.
	got, _ := reopened.Get(ctx, "done")
	if string(got.Params) != `{"name":"compute", "arguments": {}}` || !got.CreatedAt.Equal(at) {
		t.Fatalf("after reopening: params %s, created %v", got.Params, got.CreatedAt)
	}
}

// jsonOf renders a record for comparison, with times in UTC.
func jsonOf(t *testing.T, rec *tasks.Record) string {
	t.Helper()
	c := rec.Clone()
	for _, p := range []*time.Time{&c.CreatedAt, &c.UpdatedAt, &c.ExpiresAt, &c.LeaseExpiresAt} {
		*p = p.UTC()
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("rendering a record: %v", err)
	}
	return string(b)
}

func TestEmptyAndMissingJSONStayApart(t *testing.T) {
	ctx := context.Background()
	s := open(t, dbPath(t))
	rec := &tasks.Record{ID: "t", Principal: "alice", Status: tasks.StatusWorking, Params: json.RawMessage{}}
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	rec.Inputs = []tasks.Input{{Key: "input-1", Request: json.RawMessage(`{}`), Response: json.RawMessage{}}}
	if err := s.Update(ctx, rec); err != nil {
		t.Fatalf("Update: %v", err)
	}
	got, err := s.Get(ctx, "t")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Params == nil || len(got.Params) != 0 {
		t.Fatalf("empty params came back as %#v", got.Params)
	}
	if got.Result != nil || !got.Inputs[0].Answered() {
		t.Fatalf("nil result came back as %#v; empty answer answered: %v", got.Result, got.Inputs[0].Answered())
	}
}

func TestOpenCreatesTheSchemaOnceAndRecordsItsVersion(t *testing.T) {
	path := dbPath(t)
	open(t, path)
	open(t, path) // a second Open of a current file migrates nothing
	db := rawDB(t, path)
	var version, rows int
	if err := db.QueryRow(`SELECT version, (SELECT count(*) FROM weft_schema) FROM weft_schema`).Scan(&version, &rows); err != nil {
		t.Fatalf("reading the schema version: %v", err)
	}
	if version != 4 || rows != 1 {
		t.Fatalf("schema version table holds version %d in %d rows, want version 4 in 1 row", version, rows)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q (%v), want wal", mode, err)
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) {
	path := dbPath(t)
	open(t, path)
	if _, err := rawDB(t, path).Exec(`UPDATE weft_schema SET version = 99`); err != nil {
		t.Fatalf("setting the version: %v", err)
	}
	_, err := sqlite.Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), "newer weft") {
		t.Fatalf("Open of a file from a newer weft: got %v, want an error naming version 99 and a newer weft", err)
	}
}

func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	for _, path := range []string{"", ":memory:", "file:x.db", filepath.Join(t.TempDir(), "what?.db")} {
		if s, err := sqlite.Open(context.Background(), path); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
		}
	}
	if _, err := sqlite.Open(context.Background(), dbPath(t), sqlite.WithReadConns(0)); err == nil {
		t.Errorf("Open with no read connections succeeded")
	}
}

func TestOpenHonoursItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sqlite.Open(ctx, dbPath(t)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open with a cancelled context: got %v, want context.Canceled", err)
	}
}

// rawDB opens the file directly, bypassing the Store.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestExpiryBackstop(t *testing.T) {
	storetest.TestExpiryBackstop(t, func(t *testing.T, grace time.Duration) tasks.Store {
		return open(t, dbPath(t), sqlite.WithExpiryGrace(grace))
	})
}

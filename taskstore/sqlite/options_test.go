package sqlite_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

func TestWithBusyTimeoutSetsTheWritersWait(t *testing.T) {
	for _, tc := range []struct {
		opts []sqlite.Option
		want time.Duration
	}{
		{nil, sqlite.DefaultBusyTimeout},
		{[]sqlite.Option{sqlite.WithBusyTimeout(250 * time.Millisecond)}, 250 * time.Millisecond},
		{[]sqlite.Option{sqlite.WithBusyTimeout(0)}, 0},
	} {
		path := dbPath(t)
		open(t, path, tc.opts...)
		ms, err := sqlite.WriterBusyTimeout(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Duration(ms) * time.Millisecond; got != tc.want {
			t.Errorf("busy timeout of the writer = %v, want %v", got, tc.want)
		}
	}
}

// With no busy timeout, a write that finds another process holding the
// file's write lock fails at once, saying so, and the store works again
// once the lock is let go.
func TestAWriteWithoutBusyTimeoutFailsWhileAnotherProcessWrites(t *testing.T) {
	path := dbPath(t)
	s := open(t, path, sqlite.WithBusyTimeout(0))
	ctx := context.Background()
	unlock := lockFile(t, path)
	refused := storetest.WorkingRecord()
	err := s.Create(ctx, refused, tasks.Quota{})
	if err == nil || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), "WithBusyTimeout") {
		t.Fatalf("Create while another connection holds the write lock: %v, want an error saying the database is locked and pointing to WithBusyTimeout", err)
	}
	unlock()
	if _, err := s.Get(ctx, refused.ID); err == nil {
		t.Errorf("the refused task %s was stored", refused.ID)
	}
	later := storetest.WorkingRecord()
	if err := s.Create(ctx, later, tasks.Quota{}); err != nil {
		t.Fatalf("Create after the lock was let go: %v", err)
	}
}

// logRecords is a slog.Handler that sends the records it handles to a
// channel, dropping those the channel has no room for.
type logRecords chan slog.Record

func (c logRecords) Enabled(context.Context, slog.Level) bool { return true }

func (c logRecords) Handle(_ context.Context, r slog.Record) error {
	select {
	case c <- r:
	default:
	}
	return nil
}

func (c logRecords) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c logRecords) WithGroup(string) slog.Handler      { return c }

func TestWithLoggerReceivesTheBusReadFailures(t *testing.T) {
	path := dbPath(t)
	logged := make(logRecords, 16)
	openBus(t, path, sqlite.WithLogger(slog.New(logged)), sqlite.WithPollInterval(time.Millisecond))
	// Another process breaks the file under the Bus: its next poll fails.
	if _, err := rawDB(t, path).Exec(`DROP TABLE weft_signals`); err != nil {
		t.Fatalf("dropping the signals table: %v", err)
	}
	var r slog.Record
	select {
	case r = <-logged:
	case <-time.After(time.Minute): // polled every millisecond: a minute is a failure, not a slow machine
		t.Fatal("the logger given by WithLogger heard nothing of the bus's failing reads in a minute")
	}
	if r.Level != slog.LevelWarn || !strings.Contains(r.Message, "cannot read signals") {
		t.Fatalf("logged %v %q, want the warning that the bus cannot read signals", r.Level, r.Message)
	}
	var named string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "path" {
			named = a.Value.String()
		}
		return true
	})
	if named != path {
		t.Errorf("the warning names the file %q, want %q", named, path)
	}
}

package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// closingStore is a MemoryStore whose database goes away on demand: from
// then on every call takes a millisecond and fails, as a store closed
// under a shutting-down server does.
type closingStore struct {
	*tasks.MemoryStore
	closed atomic.Bool
}

var errDatabaseClosed = errors.New("sql: database is closed")

func (s *closingStore) fail() error {
	if !s.closed.Load() {
		return nil
	}
	time.Sleep(time.Millisecond)
	return errDatabaseClosed
}

func (s *closingStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := s.fail(); err != nil {
		return nil, err
	}
	return s.MemoryStore.Get(ctx, id)
}

func (s *closingStore) Update(ctx context.Context, rec *tasks.Record) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.MemoryStore.Update(ctx, rec)
}

// warnings counts the log lines at Warn and above by message.
type warnings struct {
	mu    sync.Mutex
	lines map[string]int
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler           { return w }
func (w *warnings) WithGroup(string) slog.Handler                { return w }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines[r.Message]++
	return nil
}

func TestShutdownWithTenThousandRunningTasksKeepsItsBoundAndLogsOneLinePerProblem(t *testing.T) {
	const running = 10_000
	const bound = 5 * time.Second // what weft serve gives the runtime after its HTTP shutdown
	synctest.Test(t, func(t *testing.T) {
		store := &closingStore{MemoryStore: tasks.NewMemoryStore()}
		logged := &warnings{lines: map[string]int{}}
		rt, err := tasks.New(store, tasks.NewMemoryBus(), tasks.WithLogger(slog.New(logged)), tasks.WithLimits(0, 0))
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		rt.Register("tools/call", "work", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for n := 1; ; n++ {
				select {
				case <-ctx.Done():
					return tasks.Result{}, ctx.Err()
				case <-tick.C:
					x.Progress(fmt.Sprintf("step %d", n))
				}
			}
		}, tasks.Policy{})
		for i := range running {
			if _, err := rt.Start(context.Background(), tasks.StartRequest{Principal: fmt.Sprint(i), Method: "tools/call", Name: "work"}); err != nil {
				t.Fatalf("Start: %v", err)
			}
		}
		time.Sleep(3 * time.Second) // the handlers report progress

		store.closed.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		began := time.Now()
		err = rt.Close(ctx)
		if took := time.Since(began); took > bound {
			t.Errorf("Close with %d running tasks took %v, more than its deadline of %v", running, took, bound)
		}
		if err == nil {
			t.Errorf("Close stopped %d running handlers and returned nil; want an error saying so", running)
		}
		time.Sleep(time.Minute) // the executor's idle goroutines end; late writes, if any, log
		logged.mu.Lock()
		defer logged.mu.Unlock()
		if len(logged.lines) == 0 {
			t.Errorf("the store failing under %d tasks was never logged", running)
		}
		for msg, n := range logged.lines {
			if n > 1 {
				t.Errorf("%d lines: %q; want one line per kind of problem", n, msg)
			}
		}
	})
}

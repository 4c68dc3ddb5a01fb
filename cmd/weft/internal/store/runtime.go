package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// CloseTimeout bounds how long Runtime.Close waits for running tasks: then
// they are stopped and their leases released, so the next instance on the
// same store recovers them (by each task's policy).
const CloseTimeout = 5 * time.Second

// Runtime is a task runtime on an opened store.
type Runtime struct {
	*tasks.Runtime
	Store *Store
}

// OpenRuntime opens the store spec names (see Open) and starts a task
// runtime on it.
func OpenRuntime(ctx context.Context, spec string, logger *slog.Logger) (*Runtime, error) {
	st, err := Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	rt, err := tasks.New(st.Store, st.Bus, tasks.WithLogger(logger))
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("starting the task runtime on %s: %w", st.Description, err)
	}
	return &Runtime{Runtime: rt, Store: st}, nil
}

// ServerOptions are the options of a server whose tools with task support
// run as tasks on r.
func (r *Runtime) ServerOptions(logger *slog.Logger) *server.Options {
	return &server.Options{Logger: logger, Tasks: r.Runtime}
}

// Close stops the runtime (waiting up to CloseTimeout for running tasks),
// then closes the store.
func (r *Runtime) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	return errors.Join(r.Runtime.Close(ctx), r.Store.Close())
}

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

// MinLease is the shortest execution lease Settings accept: shorter ones
// would have the server renewing leases more than it works.
const MinLease = time.Second

// ErrBadSettings is wrapped by the error of OpenRuntime for Settings it
// cannot work with: a mistake on the command line.
var ErrBadSettings = errors.New("not a usable task setting")

// Settings tune the task runtime of one server among several on a store.
// The zero value keeps the engine's defaults.
type Settings struct {
	// Instance names the server: it is recorded as the owner of the tasks
	// it runs, shown in its audit log, and named in the statusMessage of a
	// task failed because the server was lost. Every server on a store
	// needs its own name; "" is a random one.
	Instance string
	// Lease is how long a task's execution lease lasts without a renewal.
	// The server renews its leases every third of it and looks for lapsed
	// leases as often (and at least every tasks.DefaultSweepInterval), so
	// the tasks of a lost server are recovered within 4/3 Lease of its last
	// renewal. Zero is tasks.DefaultLease; otherwise at least MinLease.
	Lease time.Duration
	// MaxTasksPerPrincipal and MaxTasks bound the unfinished tasks of one
	// client (principal) and of everyone, across every server on the store
	// (tasks.WithLimits); MaxTTL is the longest a client may ask to keep a
	// task (tasks.WithTTL). Zero keeps the engine's default
	// (tasks.DefaultMaxTasksPerPrincipal, tasks.DefaultMaxTasks,
	// tasks.DefaultMaxTTL); a negative value lifts the limit.
	MaxTasksPerPrincipal int
	MaxTasks             int
	MaxTTL               time.Duration

	// Observer receives the runtime's metrics; nil means none.
	Observer tasks.Observer
}

// check rejects settings the runtime cannot work with, saying what to give.
func (s Settings) check() error {
	if s.Lease != 0 && s.Lease < MinLease {
		return fmt.Errorf("--lease %v is %w: give at least %v (or 0 for the default, %v)", s.Lease, ErrBadSettings, MinLease, tasks.DefaultLease)
	}
	return nil
}

// options are the runtime options for s.
func (s Settings) options(logger *slog.Logger) []tasks.Option {
	opts := []tasks.Option{tasks.WithLogger(logger)}
	if s.Instance != "" {
		opts = append(opts, tasks.WithInstanceID(s.Instance))
	}
	opts = append(opts,
		tasks.WithLimits(limit(s.MaxTasksPerPrincipal, tasks.DefaultMaxTasksPerPrincipal), limit(s.MaxTasks, tasks.DefaultMaxTasks)),
		tasks.WithTTL(tasks.DefaultTTL, limit(s.MaxTTL, tasks.DefaultMaxTTL)))
	if s.Lease != 0 {
		third := s.Lease / 3
		opts = append(opts, tasks.WithLease(s.Lease, third), tasks.WithSweepInterval(min(third, tasks.DefaultSweepInterval)))
	}
	if s.Observer != nil {
		opts = append(opts, tasks.WithObserver(s.Observer))
	}
	return opts
}

// limit is a setting's value for the engine: the default for zero, no
// limit (zero) for a negative value.
func limit[T int | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Runtime is a task runtime on an opened store.
type Runtime struct {
	*tasks.Runtime
	Store *Store
}

// OpenRuntime opens the store spec names (see Open; endpoint names the
// default) and starts a task runtime on it with settings s.
func OpenRuntime(ctx context.Context, spec, endpoint string, s Settings, logger *slog.Logger) (*Runtime, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	st, err := Open(ctx, spec, endpoint)
	if err != nil {
		return nil, err
	}
	rt, err := tasks.New(st.Store, st.Bus, s.options(logger)...)
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

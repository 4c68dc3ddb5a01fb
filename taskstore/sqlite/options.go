package sqlite

import (
	"log/slog"
	"time"
)

// Option configures Open and OpenBus.
type Option func(*config)

// config is the settings after options.
type config struct {
	busyTimeout  time.Duration
	readConns    int
	synchronous  Synchronous
	pollInterval time.Duration
	retention    time.Duration
	grace        time.Duration
	logger       *slog.Logger
}

// The defaults the options override.
const (
	DefaultBusyTimeout  = 5 * time.Second
	DefaultReadConns    = 4
	DefaultPollInterval = 50 * time.Millisecond
	DefaultRetention    = time.Minute
	DefaultExpiryGrace  = time.Hour
)

func defaultConfig() config {
	return config{
		busyTimeout:  DefaultBusyTimeout,
		readConns:    DefaultReadConns,
		synchronous:  SyncFull,
		pollInterval: DefaultPollInterval,
		retention:    DefaultRetention,
		grace:        DefaultExpiryGrace,
		logger:       slog.Default(),
	}
}

// Synchronous is how hard a commit pushes to the disk before it returns
// (SQLite's PRAGMA synchronous, in WAL mode).
type Synchronous string

// The two settings worth choosing between.
const (
	// SyncFull syncs the log at every commit: a task that Create or Update
	// reported written survives a power cut. The default.
	SyncFull Synchronous = "FULL"
	// SyncNormal syncs only at checkpoints: a commit survives the process
	// crashing, but the last ones may be lost if the machine loses power.
	// Several times faster on a real disk.
	SyncNormal Synchronous = "NORMAL"
)

// syncOff is the durability of a Bus's signals, which are wake-ups, not
// data: their commits need not reach the disk.
const syncOff Synchronous = "OFF"

// rank orders the settings from the least durable to the most.
func (s Synchronous) rank() int {
	switch s {
	case SyncFull:
		return 2
	case SyncNormal:
		return 1
	}
	return 0
}

// WithBusyTimeout sets how long a write waits for another process's write
// transaction to finish before failing with "database is locked"
// (default DefaultBusyTimeout). The Stores and Buses of a process on one
// file share one writer, which keeps the busy timeout of the first opened.
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busyTimeout = d } }

// WithReadConns sets how many connections serve reads (Get, List and the
// sweeps' listings) at once; writes always go through one connection
// (default DefaultReadConns).
func WithReadConns(n int) Option { return func(c *config) { c.readConns = n } }

// WithSynchronous sets the commit durability (default SyncFull).
func WithSynchronous(s Synchronous) Option { return func(c *config) { c.synchronous = s } }

// WithPollInterval sets how often a Bus looks for signals published by
// other processes (default DefaultPollInterval). It bounds how long a
// signal takes to cross processes; within one process delivery is direct.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.pollInterval = d } }

// WithRetention sets how long a Bus keeps published signals in the file for
// other processes to read (default DefaultRetention). A process that polls
// less often than this may miss a signal, which the task Runtime makes good
// at its next heartbeat or poll.
func WithRetention(d time.Duration) Option { return func(c *config) { c.retention = d } }

// WithExpiryGrace sets how long after its ExpiresAt a task is left before
// the store deletes it by itself, whatever its status (default
// DefaultExpiryGrace): every Create deletes up to two such tasks, so the
// file stops growing with expired tasks even when no Runtime sweeps it.
// The Runtime's expiry sweep normally deletes a task long before, after
// cancelling its work; this is the backstop, as a key's TTL is in Redis.
func WithExpiryGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithLogger sets where a Bus reports that it cannot read the file
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

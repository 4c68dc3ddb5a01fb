package tasks

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"time"
)

// Option configures a Runtime.
type Option func(*config)

// config is the Runtime's settings after options.
type config struct {
	instanceID       string
	clock            Clock
	logger           *slog.Logger
	observer         Observer
	executor         Executor
	quota            Quota
	defaultTTL       time.Duration
	maxTTL           time.Duration
	pollInterval     time.Duration
	minPollInterval  time.Duration
	pollPacing       time.Duration
	lease            time.Duration
	heartbeat        time.Duration
	sweepInterval    time.Duration
	progressInterval time.Duration
	pageSize         int
	recordCache      int
	recordCacheSet   bool
}

// The defaults the options override.
const (
	// DefaultMaxTasksPerPrincipal bounds one principal's unfinished tasks:
	// enough for a client running many calls at once, too few for one
	// client to exhaust the server.
	DefaultMaxTasksPerPrincipal = 100
	// DefaultMaxTasks bounds the unfinished tasks of everyone together, on
	// every instance sharing the store.
	DefaultMaxTasks         = 10_000
	DefaultTTL              = time.Hour
	DefaultMaxTTL           = 24 * time.Hour
	DefaultPollInterval     = time.Second
	DefaultMinPollInterval  = 50 * time.Millisecond
	DefaultLease            = 30 * time.Second
	DefaultHeartbeat        = 10 * time.Second
	DefaultSweepInterval    = 5 * time.Second
	DefaultProgressInterval = time.Second
	DefaultPageSize         = 50
	// DefaultPollPacing is the fastest rate the Runtime ever suggests
	// (DefaultMinPollInterval), which is what Poll holds a client to.
	DefaultPollPacing = DefaultMinPollInterval
)

func defaultConfig() config {
	return config{
		instanceID:       "weft-" + rand.Text(),
		clock:            systemClock{},
		logger:           slog.Default(),
		observer:         NopObserver{},
		executor:         newReusingExecutor(),
		quota:            Quota{PerPrincipal: DefaultMaxTasksPerPrincipal, Total: DefaultMaxTasks},
		defaultTTL:       DefaultTTL,
		maxTTL:           DefaultMaxTTL,
		pollInterval:     DefaultPollInterval,
		minPollInterval:  DefaultMinPollInterval,
		pollPacing:       DefaultPollPacing,
		lease:            DefaultLease,
		heartbeat:        DefaultHeartbeat,
		sweepInterval:    DefaultSweepInterval,
		progressInterval: DefaultProgressInterval,
		pageSize:         DefaultPageSize,
		recordCache:      DefaultRecordCache,
	}
}

// check rejects settings the runtime cannot work with.
func (c *config) check() error {
	switch {
	case c.instanceID == "":
		return fmt.Errorf("tasks: the instance ID must not be empty")
	case c.clock == nil || c.logger == nil || c.observer == nil || c.executor == nil:
		return fmt.Errorf("tasks: the clock, logger, observer and executor options must not be nil")
	case c.quota.PerPrincipal < 0 || c.quota.Total < 0:
		return fmt.Errorf("tasks: task limits must be zero (no limit) or positive")
	case c.defaultTTL < 0 || c.maxTTL < 0:
		return fmt.Errorf("tasks: TTLs must be zero (unlimited) or positive")
	case c.pollInterval <= 0 || c.minPollInterval <= 0 || c.sweepInterval <= 0 || c.progressInterval <= 0 || c.pageSize <= 0:
		return fmt.Errorf("tasks: poll intervals, sweep interval, progress interval and page size must be positive")
	case c.pollPacing < 0:
		return fmt.Errorf("tasks: the poll pacing must be zero (off) or positive, not %v", c.pollPacing)
	case c.recordCache < 0:
		return fmt.Errorf("tasks: the record cache size must be zero (off) or positive, not %d", c.recordCache)
	case c.heartbeat <= 0 || 2*c.heartbeat > c.lease:
		return fmt.Errorf("tasks: the heartbeat (%v) must be positive and at most half the lease (%v), so one missed beat does not lose the lease", c.heartbeat, c.lease)
	}
	return nil
}

// WithInstanceID names this instance; it is recorded as the owner of the
// tasks it runs. Use a stable name (a pod or host name) so a restarted
// instance recognises its own orphaned tasks. The default is random.
func WithInstanceID(id string) Option { return func(c *config) { c.instanceID = id } }

// WithClock sets the clock for recorded times, TTLs and leases.
func WithClock(clock Clock) Option { return func(c *config) { c.clock = clock } }

// WithLogger sets the logger for audit events and errors (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithObserver sets the Observer that receives metrics (default NopObserver).
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// WithExecutor sets the Executor that runs handlers (default: a goroutine
// each, reusing goroutines that finished a run shortly before).
func WithExecutor(e Executor) Option { return func(c *config) { c.executor = e } }

// WithLimits bounds unfinished (working or input_required) tasks per
// principal and in all, across every instance sharing the store: a Start
// past either bound fails with a *LimitError and stores nothing. Zero means
// no limit. Defaults: DefaultMaxTasksPerPrincipal and DefaultMaxTasks.
func WithLimits(perPrincipal, total int) Option {
	return func(c *config) { c.quota = Quota{PerPrincipal: perPrincipal, Total: total} }
}

// WithTTL sets the TTL a task gets when its client asks for none, and the
// maximum a client may ask for (larger requests are clamped). A zero default
// means tasks are kept forever unless clamped; a zero maximum means no cap.
// Defaults: DefaultTTL and DefaultMaxTTL.
func WithTTL(def, maximum time.Duration) Option {
	return func(c *config) { c.defaultTTL, c.maxTTL = def, maximum }
}

// WithPollInterval sets the longest poll interval suggested to clients,
// for a task that has not changed in a while (see Task.PollInterval),
// which is also how often waiters re-read the store should a bus signal be
// lost.
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.pollInterval = d } }

// WithPollPacing sets the least time between two answers Poll gives on
// this instance for one unfinished task that has not changed in between
// (default DefaultPollPacing; zero turns pacing off). See Runtime.Poll.
func WithPollPacing(d time.Duration) Option { return func(c *config) { c.pollPacing = d } }

// WithMinPollInterval sets the shortest poll interval suggested to
// clients: for a task just created or just changed (default
// DefaultMinPollInterval; at most the WithPollInterval one).
func WithMinPollInterval(d time.Duration) Option { return func(c *config) { c.minPollInterval = d } }

// WithLease sets how long an execution lease lasts and how often this
// instance renews the leases it holds. The heartbeat must be at most half
// the lease. A lost instance's tasks are noticed within lease + sweep interval.
func WithLease(lease, heartbeat time.Duration) Option {
	return func(c *config) { c.lease, c.heartbeat = lease, heartbeat }
}

// WithSweepInterval sets how often this instance looks for expired tasks and
// lapsed leases.
func WithSweepInterval(d time.Duration) Option { return func(c *config) { c.sweepInterval = d } }

// WithProgressInterval sets the shortest time between two statusMessage
// writes from a handler's progress reports.
func WithProgressInterval(d time.Duration) Option {
	return func(c *config) { c.progressInterval = d }
}

// WithPageSize sets how many tasks one List page holds.
func WithPageSize(n int) Option { return func(c *config) { c.pageSize = n } }

// WithRecordCache sets how many task records this instance keeps in memory
// so that reading a task that has not changed since this instance last read
// or wrote it costs no store round trip (default DefaultRecordCache, except
// on a MemoryStore, whose reads are already copies from memory; zero turns
// the cache off). A kept record stays in use until a Bus signal says
// its task changed, so the Bus must deliver every instance's signals, as
// every Bus passing storetest.TestBusPair does.
func WithRecordCache(n int) Option {
	return func(c *config) { c.recordCache, c.recordCacheSet = n, true }
}

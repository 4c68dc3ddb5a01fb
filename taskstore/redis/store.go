package redis

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"github.com/weftmcp/weft/tasks"
)

// maxStaleWrites bounds how often Update re-reads a task that changed
// between its read and its write before reporting a conflict.
const maxStaleWrites = 3

// seenTasks bounds the tasks a Store remembers for Update: enough for the
// tasks a busy instance updates within a few seconds.
const seenTasks = 10_000

// Store is a tasks.Store in Redis. It is safe for concurrent use, and any
// number of Stores, in any number of processes, may share one Redis and
// prefix. Create one with New; it holds no resources of its own beyond the
// client, which the caller keeps and closes.
//
// Update reads the task, checks the change with tasks.CheckUpdate, and
// writes it with a script that first verifies the task is still at the
// version (and creation number) it was checked against; if not, it reads
// again. The read is skipped when the Store remembers the task at the
// version being updated (from the Get before it, as the Runtime does):
// an Update is then one round trip instead of two. So the rules have one implementation, and the check and the write
// are as good as atomic: a version names exactly one stored state.
type Store struct {
	client redis.UniversalClient
	keys   keys
	consts constArgs // what every write script takes that stays the same, boxed once
	// own holds, as the scripts take it, the own channel (Bus.own) of the
	// Bus the Store's writes signal to (see luaSignal): "" until SignalsTo
	// pairs one, and always on a client other than a single *redis.Client.
	own atomic.Value
	// seen remembers the tasks this Store last read or wrote.
	seen *tasks.VersionCache
	// writes runs the create and update scripts, grouped.
	writes *groupWriter
	// tokens tells each write's script runs from every other write's.
	tokens *writeTokens
}

var _ tasks.SignallingStore = (*Store)(nil)

// New returns a Store on the client's Redis, into which it loads the
// Store's scripts (one round trip, bounded to 5 seconds; a failure is
// logged, since the scripts still run without it).
func New(client redis.UniversalClient, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, errors.New("redis: New needs a client (redis.NewClient, NewClusterClient or NewUniversalClient)")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	preloadScripts(client, cfg.logger)
	k := newKeys(cfg.prefix)
	s := &Store{client: client, keys: k, consts: newConstArgs(k, cfg.grace),
		seen: tasks.NewVersionCache(seenTasks), writes: newGroupWriter(client), tokens: newWriteTokens()}
	s.own.Store("")
	return s, nil
}

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record, quota tasks.Quota) error {
	return s.create(ctx, rec, quota, "")
}

// CreateSignalling implements tasks.SignallingStore: the create script
// publishes msg on the Bus's channel.
func (s *Store) CreateSignalling(ctx context.Context, rec *tasks.Record, quota tasks.Quota, msg string) error {
	return s.create(ctx, rec, quota, msg)
}

// SignalsTo implements tasks.SignallingStore: the store's scripts publish
// on bus's channel when bus is a Bus with the store's prefix on the very
// client the store was given (so on the same Redis). On one Redis (a
// Client, failover included) the scripts then leave out the signals no
// other Bus would hear (see luaSignal); on any other kind of client (Redis
// Cluster, where PUBSUB NUMSUB counts one node's) they publish always.
func (s *Store) SignalsTo(bus tasks.Bus) *tasks.RelayBus {
	b, ok := bus.(*Bus)
	if !ok || b.channel != s.keys.signals || !sameClient(b.client, s.client) {
		return nil
	}
	if _, single := s.client.(*redis.Client); single {
		s.own.Store(b.own)
	}
	return b.RelayBus
}

// sameClient reports whether a and b are one client. go-redis's clients
// are pointers, compared by address; a client of another kind is never
// taken for the same, since its value may not be comparable.
func sameClient(a, b redis.UniversalClient) bool {
	return reflect.ValueOf(a).Kind() == reflect.Pointer && a == b
}

// create stores rec and, when msg is not "", publishes it on the Bus's
// channel in the same script.
func (s *Store) create(ctx context.Context, rec *tasks.Record, quota tasks.Quota, msg string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: create: %w", err)
	}
	if err := tasks.CheckCreate(rec); err != nil {
		return err
	}
	if err := checkTimes(rec); err != nil {
		return err
	}
	k := s.keys
	fields := newFieldList(recordSize(rec))
	s.tokens.add(&fields)
	identityFields(&fields, rec)
	mutableFields(&fields, nil, rec)
	c := &s.consts
	cmd := append(evalSHA(createScript, 8, 19),
		k.task+rec.ID, c.seq, k.list+rec.Principal, c.expiry, c.lease, c.active, k.actives+rec.Principal, c.all,
		rec.ID, quota.PerPrincipal, quota.Total, c.grace,
		scoreArg(rec.ExpiresAt, !rec.ExpiresAt.IsZero()), scoreArg(rec.LeaseExpiresAt, leased(rec)),
		expiryMember(rec.ID, rec.Principal), c.signals, msg, fields.bytes(), s.own.Load())
	res, err := s.writes.run(ctx, createScript, cmd)
	if err != nil {
		return fmt.Errorf("redis: create task %s: %w", rec.ID, err)
	}
	switch res {
	case "exists":
		return fmt.Errorf("%w: %s", tasks.ErrExists, rec.ID)
	case "limit:principal":
		return &tasks.LimitError{Scope: tasks.LimitPrincipal, Limit: quota.PerPrincipal}
	case "limit:total":
		return &tasks.LimitError{Scope: tasks.LimitTotal, Limit: quota.Total}
	}
	rec.Version = 1
	if seq, ok := res.(int64); ok {
		s.seen.Put(seq, rec) // the Runtime's next write may come with no read before it
	}
	return nil
}

// leased reports whether the record belongs in the lease index: it is
// unfinished and has an owner and a lease time.
func leased(rec *tasks.Record) bool {
	return !rec.Status.Terminal() && rec.Owner != "" && !rec.LeaseExpiresAt.IsZero()
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: get: %w", err)
	}
	rec, seq, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	s.seen.Put(seq, rec)
	return rec, nil
}

// read returns the task and its creation number.
func (s *Store) read(ctx context.Context, id string) (*tasks.Record, int64, error) {
	h, err := s.client.HGetAll(ctx, s.keys.task+id).Result()
	if err != nil {
		return nil, 0, fmt.Errorf("redis: get task %s: %w", id, err)
	}
	if len(h) == 0 {
		return nil, 0, tasks.ErrNotFound
	}
	return decodeRecord(id, h)
}

// Update implements tasks.Store.
func (s *Store) Update(ctx context.Context, rec *tasks.Record) error {
	return s.update(ctx, rec, "")
}

// UpdateSignalling implements tasks.SignallingStore: the update script
// publishes msg on the Bus's channel.
func (s *Store) UpdateSignalling(ctx context.Context, rec *tasks.Record, msg string) error {
	return s.update(ctx, rec, msg)
}

// update writes rec and, when msg is not "", publishes it on the Bus's
// channel in the same script.
func (s *Store) update(ctx context.Context, rec *tasks.Record, msg string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: update: %w", err)
	}
	if err := checkTimes(rec); err != nil {
		return err
	}
	stored, seq, remembered := s.seen.At(rec.ID, rec.Version)
	for range maxStaleWrites {
		if !remembered {
			var err error
			if stored, seq, err = s.read(ctx, rec.ID); err != nil {
				return err
			}
		}
		if err := tasks.CheckUpdate(stored, rec); err != nil {
			return err
		}
		switch res, err := s.write(ctx, rec, stored, seq, msg); {
		case err != nil:
			return fmt.Errorf("redis: update task %s: %w", rec.ID, err)
		case res == "missing":
			s.seen.Forget(rec.ID)
			return tasks.ErrNotFound
		case res == "ok":
			rec.Version = stored.Version + 1
			s.seen.Put(seq, rec)
			return nil
		}
		// "stale": the task changed since that state; check against the new one.
		s.seen.Forget(rec.ID)
		remembered = false
	}
	return fmt.Errorf("%w: task %s kept changing while it was being written", tasks.ErrConflict, rec.ID)
}

// write runs the update script for rec, checked against stored at the
// creation number seq, publishing msg unless it is "".
func (s *Store) write(ctx context.Context, rec, stored *tasks.Record, seq int64, msg string) (any, error) {
	k := s.keys
	set, unset := newFieldList(recordSize(rec)), newFieldList(64)
	s.tokens.add(&set)
	mutableFields(&set, &unset, rec)
	unfinished := "0"
	if !rec.Status.Terminal() {
		unfinished = "1"
	}
	c := &s.consts
	cmd := append(evalSHA(updateScript, 5, 19),
		k.task+rec.ID, c.expiry, c.lease, c.active, k.actives+stored.Principal,
		rec.ID, seq, stored.Version, stored.Version+1, unfinished, c.grace,
		scoreArg(rec.ExpiresAt, !rec.ExpiresAt.IsZero()), scoreArg(rec.LeaseExpiresAt, leased(rec)),
		expiryMember(rec.ID, stored.Principal), c.signals, msg, set.bytes(), unset.bytes(), s.own.Load())
	return s.writes.run(ctx, updateScript, cmd)
}

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: delete: %w", err)
	}
	k := s.keys
	n, err := deleteScript.Run(ctx, s.client, []string{k.expiry, k.lease, k.active, k.all, k.reply + s.tokens.next()},
		k.task, k.list, k.actives, id).Int()
	if err != nil {
		return fmt.Errorf("redis: delete task %s: %w", id, err)
	}
	if n == 0 {
		return tasks.ErrNotFound
	}
	return nil
}

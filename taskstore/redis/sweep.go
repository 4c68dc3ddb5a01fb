package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// Expired implements tasks.Store.
func (s *Store) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: list expired: %w", err)
	}
	k := s.keys
	due, err := expiredScript.Run(ctx, s.client, []string{k.expiry, k.lease, k.active, k.all},
		k.task, k.list, k.actives, ceilMillis(now), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: list expired tasks: %w", err)
	}
	return notAfter(due, now), nil
}

// DeleteExpired implements tasks.Store.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]tasks.DeletedTask, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: delete expired: %w", err)
	}
	k := s.keys
	f, err := deleteExpiredScript.Run(ctx, s.client, []string{k.expiry, k.lease, k.active, k.all, k.reply + s.tokens.next()},
		k.task, k.list, k.actives, now.UnixMilli(), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: delete expired tasks: %w", err)
	}
	gone := make([]tasks.DeletedTask, 0, len(f)/5)
	for i := 0; i+4 < len(f); i += 5 {
		gone = append(gone, tasks.DeletedTask{ID: f[i], Principal: f[i+1], Method: f[i+2], Name: f[i+3], Status: tasks.Status(f[i+4])})
	}
	return gone, nil
}

// LeaseExpired implements tasks.Store.
func (s *Store) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: list lapsed leases: %w", err)
	}
	due, err := leaseExpiredScript.Run(ctx, s.client, []string{s.keys.lease},
		s.keys.task, ceilMillis(now), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: list lapsed leases: %w", err)
	}
	return notAfter(due, now), nil
}

// notAfter takes the flat ID-time pairs a listing script returned and keeps
// the IDs whose time is not after now. The scores the scripts compare are
// whole milliseconds, so only pairs in now's own millisecond can drop out.
func notAfter(pairs []string, now time.Time) []string {
	ids := make([]string, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		at, err := time.Parse(time.RFC3339Nano, pairs[i+1])
		if err == nil && !at.After(now) {
			ids = append(ids, pairs[i])
		}
	}
	return ids
}

package redis

import (
	"context"
	"fmt"
	"time"
)

// Expired implements tasks.Store.
func (s *Store) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: list expired: %w", err)
	}
	k := s.keys
	due, err := expiredScript.Run(ctx, s.client, []string{k.expiry, k.lease, k.active},
		k.task, k.list, k.actives, ceilMillis(now), limit).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: list expired tasks: %w", err)
	}
	return notAfter(due, now), nil
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

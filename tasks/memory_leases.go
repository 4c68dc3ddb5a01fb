package tasks

import (
	"context"
	"fmt"
	"time"
)

var _ LeaseRenewer = (*MemoryStore)(nil)

// RenewLeases implements LeaseRenewer.
func (s *MemoryStore) RenewLeases(ctx context.Context, owner string, ids []string, until time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: renew leases: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	renewed := make([]string, 0, len(ids))
	for _, id := range ids {
		e, ok := s.entries[id]
		if !ok || e.rec.Status.Terminal() || e.rec.Owner != owner {
			continue
		}
		next := *e.rec // handed-out records are clones: the stored one is replaced, never changed
		next.LeaseExpiresAt = until
		next.Version++
		e.rec = &next
		s.leases.sync(e)
		renewed = append(renewed, id)
	}
	return renewed, nil
}

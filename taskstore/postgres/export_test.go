package postgres

import "github.com/jackc/pgx/v5/pgxpool"

// QuotaLockTotal is the advisory lock key serializing checks of the total
// quota, which a test holds to keep a batch of writes in flight.
const QuotaLockTotal = quotaLockTotal

// Writes returns whether a batch of s's task writes is in flight, and how
// many writes wait for it.
func (s *Store) Writes() (inFlight bool, queued int) {
	return s.writes.State()
}

// Pool returns the connections s uses.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

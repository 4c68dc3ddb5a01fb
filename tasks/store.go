package tasks

import (
	"context"
	"time"
)

// Store is the driver interface for task state: the one source of truth every
// instance reads and writes. A driver must pass storetest.TestStore (and, if
// several processes can share it, storetest.TestStorePair).
//
// The contract, for a distributed and possibly eventually consistent world:
//
//   - Create is durable and visible to every reader of the store (every
//     instance) before it returns.
//   - Update is compare-and-swap on Record.Version and enforces CheckUpdate
//     against the stored record inside the same atomic step, so a finished
//     task stays finished however writers race.
//   - Records passed in and handed out are copies: a caller may change them
//     freely without touching stored state.
//   - Every call honours its context and returns an error wrapping ctx.Err()
//     when the context is already done.
//   - Times come back as the same instants, to at least millisecond
//     precision; raw JSON comes back byte for byte.
type Store interface {
	// Create stores a new record after CheckCreate, unless that would exceed
	// the quota (a *LimitError, nothing stored) or the ID is taken
	// (ErrExists). On success rec.Version is 1.
	Create(ctx context.Context, rec *Record, quota Quota) error
	// Get returns the record with the ID, or ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Update replaces the stored record with rec when CheckUpdate allows it
	// (ErrConflict, a *TerminalError or ErrInvalidUpdate otherwise; ErrNotFound
	// when there is no such record). Identity fields are not rewritten. On
	// success rec.Version is the new version.
	Update(ctx context.Context, rec *Record) error
	// Delete removes the record, or returns ErrNotFound.
	Delete(ctx context.Context, id string) error
	// List returns up to limit (≥ 1) of the principal's records, starting
	// after cursor ("" for the beginning), and the cursor of the next page,
	// which is "" exactly when no more records exist. Paging is stable under
	// concurrent inserts: every record that exists throughout the paging is
	// returned exactly once and no record twice. A cursor the store did not
	// produce gives ErrInvalidCursor.
	List(ctx context.Context, principal, cursor string, limit int) (recs []*Record, next string, err error)
	// Expired returns the IDs of up to limit records whose ExpiresAt is set
	// and not after now, in any status.
	Expired(ctx context.Context, now time.Time, limit int) ([]string, error)
	// DeleteExpired deletes up to limit finished records whose ExpiresAt is
	// set and not after now, each atomically with the check, and returns
	// them (as much as the audit log needs). Expired records that are
	// unfinished stay: the Runtime cancels their work first. One call
	// deletes a whole batch, so that expiry keeps pace with creation.
	DeleteExpired(ctx context.Context, now time.Time, limit int) ([]DeletedTask, error)
	// LeaseExpired returns the IDs of up to limit unfinished records that have
	// an Owner and whose LeaseExpiresAt is set and not after now.
	LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// DeletedTask is what DeleteExpired tells of a record it deleted.
type DeletedTask struct {
	ID, Principal, Method, Name string
	Status                      Status // the terminal status it was deleted in
}

// deletedTask describes rec as deleted.
func deletedTask(rec *Record) DeletedTask {
	return DeletedTask{ID: rec.ID, Principal: rec.Principal, Method: rec.Method, Name: rec.Name, Status: rec.Status}
}

// Quota bounds the number of unfinished (working or input_required) tasks
// Create may leave in the store. Zero means no bound.
type Quota struct {
	PerPrincipal int // unfinished tasks of the new record's principal
	Total        int // unfinished tasks of all principals
}

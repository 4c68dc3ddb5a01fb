package tasks

import "sync"

// VersionCache remembers, for a driver whose Update checks a change with
// CheckUpdate against the stored record, the last state of each task it
// read or wrote, with the row or hash it was in (a creation number). A
// task's creation number and version name exactly one stored state, so an
// Update of a record read at that version can be checked against the
// remembered state instead of reading the task again, provided its write
// is conditional on the task still being at that creation number and
// version. The Runtime reads every task just before it updates it, so
// this saves a round trip per write.
//
// It holds up to a bound of tasks, forgetting arbitrary ones beyond it.
// It is safe for concurrent use; the zero value is not: use
// NewVersionCache.
type VersionCache struct {
	max  int
	mu   sync.Mutex
	recs map[string]versionedRecord
}

// versionedRecord is a remembered state and the creation number of its
// row.
type versionedRecord struct {
	seq int64
	rec *Record
}

// NewVersionCache returns a VersionCache holding up to max tasks.
func NewVersionCache(max int) *VersionCache {
	return &VersionCache{max: max, recs: make(map[string]versionedRecord)}
}

// Put remembers rec, stored with creation number seq, as its task's
// latest state. The cache keeps a copy.
func (c *VersionCache) Put(seq int64, rec *Record) {
	kept := rec.Clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.recs[rec.ID]; !ok && len(c.recs) >= c.max {
		for id := range c.recs {
			delete(c.recs, id)
			break
		}
	}
	c.recs[rec.ID] = versionedRecord{seq: seq, rec: kept}
}

// At returns the remembered state of the task at the version, and its
// creation number, if the cache has that one. The caller must not change
// the record.
func (c *VersionCache) At(id string, version uint64) (*Record, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.recs[id]
	if !ok || v.rec.Version != version {
		return nil, 0, false
	}
	return v.rec, v.seq, true
}

// Forget drops what the cache remembers of the task.
func (c *VersionCache) Forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.recs, id)
}

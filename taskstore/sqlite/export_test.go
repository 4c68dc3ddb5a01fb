package sqlite

import (
	"fmt"
	"path/filepath"
)

// sharedWriterOf returns the writer of the file at path open in this
// process, if any.
func sharedWriterOf(path string) (*sharedWriter, bool) {
	key, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	writers.mu.Lock()
	defer writers.mu.Unlock()
	sw, ok := writers.open[key]
	return sw, ok
}

// WriterState returns how many writes wait in the queue of the file's
// writer, and whether the writer is using its connection (in a
// transaction, or waiting for the file's lock to begin one).
func WriterState(path string) (queued int, busy bool) {
	sw, ok := sharedWriterOf(path)
	if !ok {
		return 0, false
	}
	return len(sw.queue), sw.db.Stats().InUse > 0
}

// WriterCounts returns how many transactions the writer of the file at
// path has committed in this process, and how many writes they held, for
// benchmarks to report per task.
func WriterCounts(path string) (commits, writes int64) {
	if sw, ok := sharedWriterOf(path); ok {
		return sw.commits.Load(), sw.writes.Load()
	}
	return 0, 0
}

// WriterBusyTimeout returns the busy timeout, in milliseconds, of the
// connection the writer of the file at path writes with.
func WriterBusyTimeout(path string) (int, error) {
	sw, ok := sharedWriterOf(path)
	if !ok {
		return 0, fmt.Errorf("no writer of %s is open in this process", path)
	}
	var ms int
	err := sw.db.QueryRow(`PRAGMA busy_timeout`).Scan(&ms)
	return ms, err
}

package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
)

// writers holds the writer of each file open in this process, shared by
// every Store and Bus on it: their writes join one queue and one
// transaction instead of contending for SQLite's lock, where a loser
// sleeps in the busy handler (up to 100 ms a time) however soon the lock
// is free.
var writers = struct {
	mu   sync.Mutex
	open map[string]*sharedWriter
}{open: make(map[string]*sharedWriter)}

// sharedWriter is a writer and the number of Stores and Buses using it.
type sharedWriter struct {
	*writer
	key  string
	refs int
}

// acquireWriter returns the writer of the file at path, opening its
// connection, migrating the schema and starting it if no Store or Bus of
// this process has it open. The first opener's busy timeout applies. Give
// it back with releaseWriter.
func acquireWriter(ctx context.Context, path string, cfg config) (*sharedWriter, error) {
	key, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	writers.mu.Lock()
	defer writers.mu.Unlock()
	if sw, ok := writers.open[key]; ok {
		// Another process may have migrated the file since: check again.
		if err := migrate(ctx, sw.db, path); err != nil {
			return nil, err
		}
		sw.refs++
		return sw, nil
	}
	// A connection the pool opens again after an error starts at full sync,
	// the safe side; the writer lowers it per batch when it can.
	cfg.synchronous = SyncFull
	db, err := openDB(path, cfg, false)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	if err := migrate(ctx, db, path); err != nil {
		db.Close()
		return nil, err
	}
	w, err := startWriter(ctx, path, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	sw := &sharedWriter{writer: w, key: key, refs: 1}
	writers.open[key] = sw
	return sw, nil
}

// releaseWriter gives back a writer acquireWriter returned, and closes it
// when no Store or Bus of this process uses it any more.
func releaseWriter(sw *sharedWriter) error {
	writers.mu.Lock()
	sw.refs--
	last := sw.refs == 0
	if last {
		delete(writers.open, sw.key)
	}
	writers.mu.Unlock()
	if !last {
		return nil
	}
	return sw.close()
}

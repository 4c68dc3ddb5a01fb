package main

import (
	"crypto/rand"
	"sync"
)

// sessionTable holds the legacy HTTP sessions: each id maps to the protocol
// version negotiated when it was created.
type sessionTable struct {
	mu       sync.RWMutex
	versions map[string]string
}

// newSessionTable returns an empty table.
func newSessionTable() *sessionTable {
	return &sessionTable{versions: make(map[string]string)}
}

// create starts a session speaking version and returns its unguessable id.
func (t *sessionTable) create(version string) string {
	id := rand.Text()
	t.mu.Lock()
	t.versions[id] = version
	t.mu.Unlock()
	return id
}

// version returns the version of session id, or false if there is none.
func (t *sessionTable) version(id string) (string, bool) {
	t.mu.RLock()
	v, ok := t.versions[id]
	t.mu.RUnlock()
	return v, ok
}

// remove ends session id and reports whether it existed.
func (t *sessionTable) remove(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.versions[id]
	delete(t.versions, id)
	return ok
}

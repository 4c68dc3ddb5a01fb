package redis

// PreloadedHashes returns the SHA-1 of every script New loads.
func PreloadedHashes() []string {
	hashes := make([]string, len(preloaded))
	for i, s := range preloaded {
		hashes[i] = s.Hash()
	}
	return hashes
}

// Writes returns whether a pipeline of s's task writes is in flight, and
// how many writes wait for it.
func (s *Store) Writes() (inFlight bool, queued int) {
	return s.writes.State()
}

// TaskKey returns the key of the task's hash.
func (s *Store) TaskKey(id string) string { return s.keys.task + id }

package redis

// PreloadedHashes returns the SHA-1 of every script New loads.
func PreloadedHashes() []string {
	hashes := make([]string, len(preloaded))
	for i, s := range preloaded {
		hashes[i] = s.Hash()
	}
	return hashes
}

package auth

import "time"

// SetKeyClock replaces the clock the verifier's key cache uses to decide
// when it may refetch the key set, so tests can move time forward.
func SetKeyClock(v *JWTVerifier, now func() time.Time) {
	v.keys.mu.Lock()
	defer v.keys.mu.Unlock()
	v.keys.now = now
}

// SetCacheClock replaces the clock a caching verifier judges its entries'
// age by.
func SetCacheClock(c *CachingVerifier, now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

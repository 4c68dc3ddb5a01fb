package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"sync"
	"time"
)

// Defaults of CacheOptions.
const (
	DefaultCacheTTL        = time.Minute
	DefaultCacheRejectTTL  = 10 * time.Second
	DefaultCacheMaxEntries = 10000
)

// sharedVerifyTimeout bounds a verification the requests presenting one
// token share, which no request's cancellation ends.
const sharedVerifyTimeout = 30 * time.Second

// CacheOptions configures [NewCachingVerifier].
type CacheOptions struct {
	// TTL is how long a verified token's TokenInfo is reused, never past
	// the token's expiry; zero means DefaultCacheTTL. A token revoked at
	// the authorization server stays accepted for up to TTL.
	TTL time.Duration
	// RejectTTL is how long a rejected token (ErrInvalidToken) stays
	// rejected without asking again, sparing the authorization server a
	// client that retries a bad token; zero means DefaultCacheRejectTTL,
	// negative means rejections are not remembered. A failure of
	// verification itself (the endpoint could not be reached) is never
	// remembered.
	RejectTTL time.Duration
	// MaxEntries bounds the tokens remembered; zero means
	// DefaultCacheMaxEntries. When full, the oldest entry is dropped.
	MaxEntries int
}

// CachingVerifier is a [Verifier] that remembers the verdicts of another,
// such as an [IntrospectionVerifier], which otherwise calls the
// authorization server on every request. Tokens are remembered by their
// SHA-256 hash, never in clear, and concurrent verifications of one token
// share a single call. It is safe for concurrent use.
type CachingVerifier struct {
	next Verifier
	opts CacheOptions
	now  func() time.Time

	mu       sync.Mutex
	entries  map[[32]byte]*cacheEntry
	order    [][32]byte // keys by insertion, oldest first, for eviction
	inflight map[[32]byte]*cacheCall
}

// cacheEntry is a remembered verdict.
type cacheEntry struct {
	info  *TokenInfo // nil for a rejection
	err   error      // the rejection
	until time.Time
}

// cacheCall is a verification under way that others wait for.
type cacheCall struct {
	done chan struct{}
	info *TokenInfo
	err  error
}

// NewCachingVerifier returns a verifier that asks next and remembers its
// answers as opts says.
func NewCachingVerifier(next Verifier, opts CacheOptions) *CachingVerifier {
	if opts.TTL <= 0 {
		opts.TTL = DefaultCacheTTL
	}
	if opts.RejectTTL == 0 {
		opts.RejectTTL = DefaultCacheRejectTTL
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultCacheMaxEntries
	}
	return &CachingVerifier{next: next, opts: opts, now: time.Now,
		entries: map[[32]byte]*cacheEntry{}, inflight: map[[32]byte]*cacheCall{}}
}

// Verify returns the remembered verdict on token, or asks the wrapped
// verifier, once, however many requests present the token meanwhile.
func (c *CachingVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	c.mu.Lock()
	if e := c.entries[key]; e != nil && c.now().Before(e.until) {
		c.mu.Unlock()
		return copyInfo(e.info), e.err
	}
	call := c.inflight[key]
	if call == nil {
		call = &cacheCall{done: make(chan struct{})}
		c.inflight[key] = call
		// The call is shared, so it runs apart from the request that
		// started it (with its context's values, without its
		// cancellation): that request's end used to fail every other
		// waiting for the call.
		go c.verify(context.WithoutCancel(ctx), key, token, call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return copyInfo(call.info), call.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// verify asks the wrapped verifier about token, remembers its verdict and
// hands it to the requests waiting for call.
func (c *CachingVerifier) verify(ctx context.Context, key [32]byte, token string, call *cacheCall) {
	ctx, cancel := context.WithTimeout(ctx, sharedVerifyTimeout)
	defer cancel()
	call.info, call.err = c.next.Verify(ctx, token)
	c.mu.Lock()
	delete(c.inflight, key)
	c.rememberLocked(key, call.info, call.err)
	c.mu.Unlock()
	close(call.done)
}

// rememberLocked keeps a verdict for as long as the options allow.
func (c *CachingVerifier) rememberLocked(key [32]byte, info *TokenInfo, err error) {
	now := c.now()
	var until time.Time
	switch {
	case err == nil && info != nil:
		until = now.Add(c.opts.TTL)
		if !info.Expiry.IsZero() && info.Expiry.Before(until) {
			until = info.Expiry
		}
	case errors.Is(err, ErrInvalidToken) && c.opts.RejectTTL > 0:
		until = now.Add(c.opts.RejectTTL)
		info = nil
	default:
		return
	}
	if !now.Before(until) {
		return
	}
	if _, ok := c.entries[key]; !ok {
		for len(c.entries) >= c.opts.MaxEntries && len(c.order) > 0 {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
	}
	c.entries[key] = &cacheEntry{info: info, err: err, until: until}
}

// copyInfo returns a copy of info whose slices and claims the caller may
// change: every request with the token is handed the same remembered
// TokenInfo, and a handler writing to its Claims changed what the others
// saw (and raced them).
func copyInfo(info *TokenInfo) *TokenInfo {
	if info == nil {
		return nil
	}
	c := *info
	c.Scopes = slices.Clone(info.Scopes)
	c.Audience = slices.Clone(info.Audience)
	if info.Claims != nil {
		c.Claims = cloneJSON(info.Claims).(map[string]any)
	}
	return &c
}

// cloneJSON returns a deep copy of a decoded JSON value: its objects and
// arrays copied, its other values (strings, numbers, booleans) shared.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = cloneJSON(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}

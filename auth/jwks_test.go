package auth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/weftmcp/weft/auth"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const aud = "https://mcp.example.com/mcp"

func newClockedVerifier(t *testing.T, is *testIssuer) (*auth.JWTVerifier, *fakeClock) {
	t.Helper()
	v, err := auth.NewJWTVerifier(auth.JWTOptions{
		Issuer:          is.issuer,
		Audience:        aud,
		Algorithms:      []string{"RS256", "ES256"},
		RefreshInterval: time.Minute,
		MaxKeyAge:       time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Now()}
	auth.SetKeyClock(v, clock.Now)
	return v, clock
}

func wantFetches(t *testing.T, is *testIssuer, want int32) {
	t.Helper()
	if got := is.fetches.Load(); got != want {
		t.Errorf("JWKS fetched %d times, want %d", got, want)
	}
}

func TestJWKS_UnknownKeyIDRefreshesOnceThenRejects(t *testing.T) {
	is := newTestIssuer(t)
	v, clock := newClockedVerifier(t, is)
	ctx := context.Background()
	rsaSK := signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}

	if _, err := v.Verify(ctx, is.token(t, rsaSK, aud, nil)); err != nil {
		t.Fatal(err)
	}
	wantFetches(t, is, 1)

	// Within the refresh interval an unknown key ID is rejected from the
	// cache: made-up key IDs cannot make us fetch.
	rotated := newECKey(t, "ec-rotated")
	for range 5 {
		if _, err := v.Verify(ctx, is.token(t, rotated, aud, nil)); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("unknown kid: %v, want ErrInvalidToken", err)
		}
	}
	wantFetches(t, is, 1)

	// After the interval, an unknown key ID refreshes the set once; still
	// unknown, it is rejected, and the next one waits for the interval again.
	clock.advance(time.Minute)
	if _, err := v.Verify(ctx, is.token(t, rotated, aud, nil)); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("unknown kid after refresh: %v, want ErrInvalidToken", err)
	}
	wantFetches(t, is, 2)
	if _, err := v.Verify(ctx, is.token(t, rotated, aud, nil)); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatal(err)
	}
	wantFetches(t, is, 2)

	// Key rotation: once the issuer publishes the key, the next refresh
	// finds it.
	is.publish(rotated)
	clock.advance(time.Minute)
	if _, err := v.Verify(ctx, is.token(t, rotated, aud, nil)); err != nil {
		t.Fatalf("rotated key after refresh: %v", err)
	}
	wantFetches(t, is, 3)
	if _, err := v.Verify(ctx, is.token(t, rsaSK, aud, nil)); err != nil {
		t.Fatalf("old key still published: %v", err)
	}
	wantFetches(t, is, 3)
}

func TestJWKS_ConcurrentUnknownKeysShareOneFetch(t *testing.T) {
	is := newTestIssuer(t)
	v, clock := newClockedVerifier(t, is)
	ctx := context.Background()
	if _, err := v.Verify(ctx, is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, aud, nil)); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Minute)

	gate, started := make(chan struct{}), make(chan struct{}, 1)
	is.mu.Lock()
	is.gate, is.started = gate, started
	is.mu.Unlock()

	stranger := newECKey(t, "unknown")
	tok := is.token(t, stranger, aud, nil)
	const n = 16
	errs := make(chan error, n)
	go func() { _, err := v.Verify(ctx, tok); errs <- err }()
	<-started // the first lookup's fetch is under way; the rest must wait for it
	for range n - 1 {
		go func() { _, err := v.Verify(ctx, tok); errs <- err }()
	}
	close(gate)
	for range n {
		if err := <-errs; !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("Verify = %v, want ErrInvalidToken", err)
		}
	}
	wantFetches(t, is, 2)
}

func TestJWKS_StaleKeysAreRefetchedAndKeptWhenTheIssuerIsDown(t *testing.T) {
	is := newTestIssuer(t)
	v, clock := newClockedVerifier(t, is)
	ctx := context.Background()
	tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, aud, nil)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	clock.advance(2 * time.Hour)
	is.down.Store(true)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("stale key with the issuer down: %v", err)
	}
	wantFetches(t, is, 2)
}

func TestJWKS_FailureIsNotTheTokensFault(t *testing.T) {
	is := newTestIssuer(t)
	is.down.Store(true)
	v, _ := newClockedVerifier(t, is)
	tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, aud, nil)
	for range 3 {
		_, err := v.Verify(context.Background(), tok)
		if err == nil || errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("JWKS down: %v, want an error that is not ErrInvalidToken", err)
		}
	}
	wantFetches(t, is, 1) // failures are rate-limited too
}

func TestJWKS_NoKeyIDNeedsASingleCandidate(t *testing.T) {
	is := newTestIssuer(t)
	v, _ := newClockedVerifier(t, is)
	ctx := context.Background()
	if _, err := v.Verify(ctx, is.token(t, signingKey{alg: jose.RS256, priv: rsaKey()}, aud, nil)); err != nil {
		t.Fatalf("no kid, one RSA key: %v", err)
	}
	is.publish(signingKey{kid: "rsa-2", alg: jose.RS256, priv: rsaKey()})
	v2, _ := newClockedVerifier(t, is)
	if _, err := v2.Verify(ctx, is.token(t, signingKey{alg: jose.RS256, priv: rsaKey()}, aud, nil)); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("no kid, two RSA keys: %v, want ErrInvalidToken", err)
	}
}

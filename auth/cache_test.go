package auth_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
)

// countingVerifier accepts tokens starting with "good" (expiring at
// expiry, when set), rejects those starting with "bad", fails on the rest,
// and counts its calls.
type countingVerifier struct {
	calls   atomic.Int64
	expiry  time.Time
	gate    chan struct{} // when set, each call waits for it
	started chan struct{} // when set, each call reports itself first
}

func (v *countingVerifier) Verify(_ context.Context, token string) (*auth.TokenInfo, error) {
	v.calls.Add(1)
	if v.started != nil {
		v.started <- struct{}{}
	}
	if v.gate != nil {
		<-v.gate
	}
	switch {
	case len(token) >= 4 && token[:4] == "good":
		return &auth.TokenInfo{Subject: token, Scopes: []string{"read"}, Audience: []string{"https://rs"}, Expiry: v.expiry}, nil
	case len(token) >= 3 && token[:3] == "bad":
		return nil, fmt.Errorf("%w: revoked", auth.ErrInvalidToken)
	}
	return nil, errors.New("the introspection endpoint is down")
}

// clock is a settable time for the cache.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newCache(v auth.Verifier, opts auth.CacheOptions) (*auth.CachingVerifier, *clock) {
	c := auth.NewCachingVerifier(v, opts)
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	auth.SetCacheClock(c, clk.now)
	return c, clk
}

func TestCachingVerifierReusesAVerdictForItsTTL(t *testing.T) {
	v := &countingVerifier{}
	c, clk := newCache(v, auth.CacheOptions{TTL: time.Minute})
	ctx := context.Background()
	for range 3 {
		info, err := c.Verify(ctx, "good-1")
		if err != nil || info.Subject != "good-1" {
			t.Fatalf("Verify = %+v, %v", info, err)
		}
		info.Scopes[0] = "changed by a caller"
	}
	if info, _ := c.Verify(ctx, "good-1"); info.Scopes[0] != "read" {
		t.Errorf("a caller's change reached the cache: %v", info.Scopes)
	}
	if n := v.calls.Load(); n != 1 {
		t.Errorf("%d calls for one token within the TTL, want 1", n)
	}
	c.Verify(ctx, "good-2")
	if n := v.calls.Load(); n != 2 {
		t.Errorf("%d calls after another token, want 2", n)
	}
	clk.add(time.Minute)
	c.Verify(ctx, "good-1")
	if n := v.calls.Load(); n != 3 {
		t.Errorf("%d calls once the TTL passed, want 3", n)
	}
}

func TestCachingVerifierNeverOutlivesTheTokensExpiry(t *testing.T) {
	v := &countingVerifier{}
	c, clk := newCache(v, auth.CacheOptions{TTL: time.Hour})
	v.expiry = clk.now().Add(10 * time.Second)
	ctx := context.Background()
	c.Verify(ctx, "good")
	clk.add(9 * time.Second)
	c.Verify(ctx, "good")
	if n := v.calls.Load(); n != 1 {
		t.Fatalf("%d calls before the token's expiry, want 1", n)
	}
	clk.add(time.Second)
	c.Verify(ctx, "good")
	if n := v.calls.Load(); n != 2 {
		t.Errorf("%d calls at the token's expiry, want 2: the cached verdict outlived the token", n)
	}
}

func TestCachingVerifierRemembersRejectionsNotFailures(t *testing.T) {
	v := &countingVerifier{}
	c, clk := newCache(v, auth.CacheOptions{RejectTTL: 5 * time.Second})
	ctx := context.Background()
	for range 2 {
		if _, err := c.Verify(ctx, "bad"); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("a rejected token: %v, want ErrInvalidToken", err)
		}
	}
	if n := v.calls.Load(); n != 1 {
		t.Errorf("%d calls for a rejected token within RejectTTL, want 1", n)
	}
	clk.add(5 * time.Second)
	c.Verify(ctx, "bad")
	if n := v.calls.Load(); n != 2 {
		t.Errorf("%d calls after RejectTTL, want 2", n)
	}
	for range 2 {
		if _, err := c.Verify(ctx, "other"); err == nil || errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("a failed verification: %v, want the verifier's own error", err)
		}
	}
	if n := v.calls.Load(); n != 4 {
		t.Errorf("%d calls, want 4: a failure of verification itself must not be remembered", n)
	}
	off, _ := newCache(v, auth.CacheOptions{RejectTTL: -1})
	off.Verify(ctx, "bad")
	off.Verify(ctx, "bad")
	if n := v.calls.Load(); n != 6 {
		t.Errorf("%d calls with RejectTTL negative, want 6", n)
	}
}

func TestCachingVerifierIsBounded(t *testing.T) {
	v := &countingVerifier{}
	c, _ := newCache(v, auth.CacheOptions{MaxEntries: 2})
	ctx := context.Background()
	for _, tok := range []string{"good-a", "good-b", "good-c", "good-c", "good-a"} {
		c.Verify(ctx, tok)
	}
	// a, b, c fill it (a is dropped for c); c is remembered; a is asked again.
	if n := v.calls.Load(); n != 4 {
		t.Errorf("%d calls, want 4", n)
	}
}

func TestCachingVerifierSharesOneCallAmongConcurrentRequests(t *testing.T) {
	v := &countingVerifier{gate: make(chan struct{}), started: make(chan struct{}, 8)}
	c, _ := newCache(v, auth.CacheOptions{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := c.Verify(ctx, "good")
			if err == nil && info.Subject != "good" {
				err = fmt.Errorf("info %+v", info)
			}
			errs <- err
		}()
	}
	<-v.started // the first call is under way; the others queue behind it
	close(v.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := v.calls.Load(); n != 1 {
		t.Errorf("%d calls for 8 concurrent verifications of one token, want 1", n)
	}
}

// awaitedContext reports, by closing waiting, that a request has begun to
// wait on it.
type awaitedContext struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (c *awaitedContext) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// contextVerifier accepts every token once released, failing with its
// context's error if that ends first, as an HTTP call does.
type contextVerifier struct {
	started, release chan struct{}
}

func (v *contextVerifier) Verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	v.started <- struct{}{}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-v.release:
		return &auth.TokenInfo{Subject: token, Audience: []string{"https://rs"}}, nil
	}
}

// A verification shared by the requests presenting one token is not ended
// by the request that started it going away: the others still get the
// verdict, and the call is made once.
func TestCachingVerifierASharedCallOutlivesTheRequestThatStartedIt(t *testing.T) {
	v := &contextVerifier{started: make(chan struct{}, 2), release: make(chan struct{})}
	c, _ := newCache(v, auth.CacheOptions{})
	first, cancel := context.WithCancel(context.Background())
	defer cancel()
	firstErr := make(chan error, 1)
	go func() {
		_, err := c.Verify(first, "good")
		firstErr <- err
	}()
	<-v.started
	waiter := &awaitedContext{Context: context.Background(), waiting: make(chan struct{})}
	type verdict struct {
		info *auth.TokenInfo
		err  error
	}
	second := make(chan verdict, 1)
	go func() {
		info, err := c.Verify(waiter, "good")
		second <- verdict{info, err}
	}()
	<-waiter.waiting // the second request waits for the first's call
	cancel()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the request that went away got %v, want context.Canceled", err)
	}
	close(v.release)
	if got := <-second; got.err != nil || got.info.Subject != "good" {
		t.Errorf("the request still waiting got %+v, %v; want the token's info", got.info, got.err)
	}
	select {
	case <-v.started:
		t.Error("the token was verified twice")
	default:
	}
}

// Each request is handed its own copy of the remembered claims: what one
// handler writes into them, at any depth, no other request sees.
func TestCachingVerifierHandsEachRequestItsOwnClaims(t *testing.T) {
	next := auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{Subject: "alice", Audience: []string{"https://rs"},
			Claims: map[string]any{"sub": "alice", "groups": []any{"dev"}, "ext": map[string]any{"tier": "free"}}}, nil
	})
	c, _ := newCache(next, auth.CacheOptions{})
	first, err := c.Verify(context.Background(), "good")
	if err != nil {
		t.Fatal(err)
	}
	first.Claims["role"] = "admin"
	first.Claims["groups"].([]any)[0] = "ops"
	first.Claims["ext"].(map[string]any)["tier"] = "paid"
	second, err := c.Verify(context.Background(), "good")
	if err != nil {
		t.Fatal(err)
	}
	if _, leaked := second.Claims["role"]; leaked || second.Claims["groups"].([]any)[0] != "dev" || second.Claims["ext"].(map[string]any)["tier"] != "free" {
		t.Errorf("another request's changes show in the claims handed out next: %v", second.Claims)
	}
}

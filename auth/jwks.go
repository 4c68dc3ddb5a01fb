package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// Limits of the JWKS cache.
const (
	maxJWKSKeys     = 100
	jwksFetchTimout = 10 * time.Second
	minRSABits      = 2048
)

// errUnknownKey marks a token signed by a key the issuer does not publish.
var errUnknownKey = errors.New("no published key matches the token")

// keySet caches the signing keys an issuer publishes as a JWK Set. It
// refetches the set when it is older than maxAge or when a token names an
// unknown key, but never more than once per minInterval, so that tokens with
// made-up key IDs cannot make the server hammer the issuer. One fetch runs at
// a time; concurrent lookups wait for it.
type keySet struct {
	hc          *http.Client
	issuer      string
	minInterval time.Duration
	maxAge      time.Duration
	now         func() time.Time

	mu          sync.Mutex
	uri         string // "" until discovered from the issuer's metadata
	keys        []jose.JSONWebKey
	fetched     time.Time     // last successful fetch
	lastAttempt time.Time     // last fetch, successful or not
	lastErr     error         // error of the last fetch, nil if it succeeded
	inflight    chan struct{} // closed when the running fetch ends
}

// key returns the public key to verify a token with header kid and alg.
func (ks *keySet) key(ctx context.Context, kid, alg string) (jose.JSONWebKey, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	waited := false
	for {
		k, found, err := ks.match(kid, alg)
		if err != nil {
			return jose.JSONWebKey{}, err
		}
		fresh := !ks.fetched.IsZero() && ks.now().Sub(ks.fetched) < ks.maxAge
		if found && (fresh || waited) {
			return k, nil
		}
		if ks.inflight != nil {
			wait := ks.inflight
			ks.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				ks.mu.Lock()
				return jose.JSONWebKey{}, ctx.Err()
			}
			ks.mu.Lock()
			waited = true
			continue
		}
		if waited || (!ks.lastAttempt.IsZero() && ks.now().Sub(ks.lastAttempt) < ks.minInterval) {
			// Rate-limited: answer from what we have.
			switch {
			case found:
				return k, nil
			case ks.keys == nil && ks.lastErr != nil:
				return jose.JSONWebKey{}, ks.lastErr
			}
			return jose.JSONWebKey{}, fmt.Errorf("%w: %w (key ID %q, algorithm %s)", ErrInvalidToken, errUnknownKey, kid, alg)
		}
		ks.refresh(ctx)
		waited = true
	}
}

// refresh fetches the key set; ks.mu is held on entry and exit but released
// during the fetch.
func (ks *keySet) refresh(ctx context.Context) {
	done := make(chan struct{})
	ks.inflight = done
	ks.lastAttempt = ks.now()
	uri := ks.uri
	ks.mu.Unlock()

	// A caller giving up must not abort the fetch others wait for.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksFetchTimout)
	keys, discovered, err := ks.fetch(fctx, uri)
	cancel()

	ks.mu.Lock()
	if discovered != "" {
		ks.uri = discovered
	}
	ks.lastErr = err
	if err == nil {
		ks.keys, ks.fetched = keys, ks.now()
	}
	ks.inflight = nil
	close(done)
}

// fetch discovers the JWKS URL when uri is empty, then reads the key set.
func (ks *keySet) fetch(ctx context.Context, uri string) (keys []jose.JSONWebKey, discovered string, err error) {
	if uri == "" {
		meta, err := DiscoverAuthorizationServer(ctx, ks.hc, ks.issuer)
		if err != nil {
			return nil, "", fmt.Errorf("find the JWKS of %s: %w", ks.issuer, err)
		}
		if meta.JWKSURI == "" {
			return nil, "", fmt.Errorf("the metadata of %s has no jwks_uri; configure JWTOptions.JWKSURL", ks.issuer)
		}
		uri, discovered = meta.JWKSURI, meta.JWKSURI
	}
	var set struct {
		Keys []jsontext.Value `json:"keys"`
	}
	if err := fetch.JSON(ctx, ks.hc, uri, &set); err != nil {
		return nil, discovered, fmt.Errorf("fetch the JWKS of %s: %w", ks.issuer, err)
	}
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil {
			continue // a key type we cannot use, such as an encryption key
		}
		if !k.IsPublic() || !k.Valid() || (k.Use != "" && k.Use != "sig") {
			continue // never verify with symmetric or private key material
		}
		if rk, ok := k.Key.(*rsa.PublicKey); ok && rk.N.BitLen() < minRSABits {
			continue
		}
		keys = append(keys, k)
		if len(keys) == maxJWKSKeys {
			break
		}
	}
	if len(keys) == 0 {
		return nil, discovered, fmt.Errorf("the JWKS of %s at %s has no usable signing keys", ks.issuer, uri)
	}
	return keys, discovered, nil
}

// match finds the key for kid and alg among the cached keys. An error means
// the token can never verify (a key with that ID exists but does not fit the
// algorithm, or the token names no key and several fit).
func (ks *keySet) match(kid, alg string) (jose.JSONWebKey, bool, error) {
	var fits []jose.JSONWebKey
	sameID := false
	for _, k := range ks.keys {
		if kid != "" && k.KeyID != kid {
			continue
		}
		sameID = true
		if (k.Algorithm == "" || k.Algorithm == alg) && keyFitsAlgorithm(k.Key, alg) {
			fits = append(fits, k)
		}
	}
	switch {
	case len(fits) == 1 || (kid != "" && len(fits) > 1):
		return fits[0], true, nil
	case len(fits) > 1:
		return jose.JSONWebKey{}, false, fmt.Errorf("%w: the token names no key ID and the issuer publishes %d keys for %s", ErrInvalidToken, len(fits), alg)
	case kid != "" && sameID:
		return jose.JSONWebKey{}, false, fmt.Errorf("%w: key %q does not fit algorithm %s", ErrInvalidToken, kid, alg)
	}
	return jose.JSONWebKey{}, false, nil
}

// keyFitsAlgorithm reports whether key is the kind of public key alg uses.
func keyFitsAlgorithm(key any, alg string) bool {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return k.Curve == elliptic.P256()
		case "ES384":
			return k.Curve == elliptic.P384()
		case "ES512":
			return k.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

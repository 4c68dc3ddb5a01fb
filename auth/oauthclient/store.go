package oauthclient

import (
	"context"
	"slices"
	"sync"
)

// A TokenStore keeps the secrets a [Client] obtains: access and refresh
// tokens, keyed by the issuer that issued them and the resource they are
// for, and client registrations, keyed by the issuer that made them. Keying
// by issuer is what keeps credentials from one authorization server from
// ever being presented to another. A store that persists across runs lets a
// CLI skip authorization on its next start; it must keep the secrets
// confidential. Methods are called concurrently.
type TokenStore interface {
	// Token returns the token for issuer and resource, or nil and no error
	// when there is none.
	Token(ctx context.Context, issuer, resource string) (*Token, error)
	SaveToken(ctx context.Context, issuer, resource string, t *Token) error
	DeleteToken(ctx context.Context, issuer, resource string) error
	// Client returns the registration obtained from issuer, or nil and no
	// error when there is none.
	Client(ctx context.Context, issuer string) (*ClientInfo, error)
	SaveClient(ctx context.Context, issuer string, c *ClientInfo) error
}

// MemoryStore is a [TokenStore] that keeps everything in memory, for the
// life of the process. The zero value is ready to use.
type MemoryStore struct {
	mu      sync.Mutex
	tokens  map[[2]string]Token
	clients map[string]ClientInfo
}

// Token returns a copy of the stored token.
func (m *MemoryStore) Token(_ context.Context, issuer, resource string) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[[2]string{issuer, resource}]
	if !ok {
		return nil, nil
	}
	t.Scopes = slices.Clone(t.Scopes)
	return &t, nil
}

// SaveToken stores a copy of t.
func (m *MemoryStore) SaveToken(_ context.Context, issuer, resource string, t *Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = map[[2]string]Token{}
	}
	c := *t
	c.Scopes = slices.Clone(t.Scopes)
	m.tokens[[2]string{issuer, resource}] = c
	return nil
}

// DeleteToken forgets the token for issuer and resource.
func (m *MemoryStore) DeleteToken(_ context.Context, issuer, resource string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tokens, [2]string{issuer, resource})
	return nil
}

// Client returns a copy of the stored registration.
func (m *MemoryStore) Client(_ context.Context, issuer string) (*ClientInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clients[issuer]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// SaveClient stores a copy of c.
func (m *MemoryStore) SaveClient(_ context.Context, issuer string, c *ClientInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.clients == nil {
		m.clients = map[string]ClientInfo{}
	}
	m.clients[issuer] = *c
	return nil
}

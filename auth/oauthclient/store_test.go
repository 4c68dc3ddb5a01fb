package oauthclient_test

import (
	"context"
	"slices"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

func TestStore_ANewClientReusesStoredTokens(t *testing.T) {
	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{})
	store := &oauthclient.MemoryStore{}
	mustReply(t, newClient(t, oauthclient.Config{Store: store}), ms.url)
	// A second process with the same store (a CLI's next run) needs no
	// authorization, only discovery.
	mustReply(t, newClient(t, oauthclient.Config{Store: store}), ms.url)
	if n := len(as.auths()); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
}

func TestStore_RejectedTokenIsRefreshedNotReused(t *testing.T) {
	as := newTestAS(t, asOptions{scopes: []string{"offline_access"}, expiresAsText: true})
	ms := newMCPServer(t, as, auth.Config{})
	store := &oauthclient.MemoryStore{}
	c := newClient(t, oauthclient.Config{Store: store})
	mustReply(t, c, ms.url)
	ctx := context.Background()
	first, err := store.Token(ctx, as.issuer, ms.url)
	if err != nil || first == nil || first.RefreshToken == "" || first.Expiry.IsZero() {
		t.Fatalf("stored token = %+v, %v; want one with a refresh token and an expiry read from a string expires_in", first, err)
	}
	ms.revoked.Store(first.AccessToken, true) // the server stops accepting it

	mustReply(t, c, ms.url)
	var grants []string
	for _, tr := range as.tokens() {
		grants = append(grants, tr.grant)
	}
	if want := []string{"authorization_code", "refresh_token"}; !slices.Equal(grants, want) {
		t.Errorf("grants = %v, want %v", grants, want)
	}
	second, _ := store.Token(ctx, as.issuer, ms.url)
	if second == nil || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Errorf("the store still holds the rejected token or the rotated-out refresh token")
	}
}

func TestMemoryStore_KeepsCopies(t *testing.T) {
	ctx := context.Background()
	var s oauthclient.MemoryStore
	if tok, err := s.Token(ctx, "https://as", "https://rs"); tok != nil || err != nil {
		t.Fatalf("empty store: %v, %v", tok, err)
	}
	tok := &oauthclient.Token{AccessToken: "a", Scopes: []string{"x"}}
	_ = s.SaveToken(ctx, "https://as", "https://rs", tok)
	tok.Scopes[0] = "changed"
	got, _ := s.Token(ctx, "https://as", "https://rs")
	got.AccessToken = "mutated"
	again, _ := s.Token(ctx, "https://as", "https://rs")
	if again.AccessToken != "a" || again.Scopes[0] != "x" {
		t.Errorf("store shares memory with callers: %+v", again)
	}
	if other, _ := s.Token(ctx, "https://other-as", "https://rs"); other != nil {
		t.Error("a token is visible under another issuer")
	}
	_ = s.DeleteToken(ctx, "https://as", "https://rs")
	if gone, _ := s.Token(ctx, "https://as", "https://rs"); gone != nil {
		t.Error("DeleteToken kept the token")
	}
}

package oauthclient_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

func TestFileStore_KeepsTokensAndClientsAcrossInstances(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "weft", "oauth.json")
	s := oauthclient.NewFileStore(path)
	if tok, err := s.Token(ctx, "https://as", "https://rs"); tok != nil || err != nil {
		t.Fatalf("a store with no file: %v, %v", tok, err)
	}
	expiry := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	want := oauthclient.Token{AccessToken: "a", TokenType: oauthclient.TokenTypeDPoP, RefreshToken: "r", Expiry: expiry, Scopes: []string{"x", "y"}}
	if err := s.SaveToken(ctx, "https://as", "https://rs", &want); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveToken(ctx, "https://as", "https://other", &oauthclient.Token{AccessToken: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveClient(ctx, "https://as", &oauthclient.ClientInfo{ClientID: "cid", ClientSecret: "sec", AuthMethod: oauthclient.AuthClientSecretPost}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the store's file: %v, %v; want mode 0600", info, err)
	}

	// Another instance on the same file (the next run of a CLI) sees it all.
	again := oauthclient.NewFileStore(path)
	got, err := again.Token(ctx, "https://as", "https://rs")
	if err != nil || got == nil || got.AccessToken != "a" || got.TokenType != oauthclient.TokenTypeDPoP || got.RefreshToken != "r" ||
		!got.Expiry.Equal(expiry) || !slices.Equal(got.Scopes, want.Scopes) {
		t.Errorf("token read back = %+v, %v; want %+v", got, err, want)
	}
	if ci, err := again.Client(ctx, "https://as"); err != nil || ci == nil || ci.ClientID != "cid" || ci.ClientSecret != "sec" {
		t.Errorf("client read back = %+v, %v", ci, err)
	}
	if ci, _ := again.Client(ctx, "https://elsewhere"); ci != nil {
		t.Errorf("a registration with another issuer was returned: %+v", ci)
	}

	// Saving replaces; deleting forgets only that token.
	if err := again.SaveToken(ctx, "https://as", "https://rs", &oauthclient.Token{AccessToken: "a2"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteToken(ctx, "https://as", "https://other"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Token(ctx, "https://as", "https://rs"); got == nil || got.AccessToken != "a2" {
		t.Errorf("after a save from another instance, the token is %+v", got)
	}
	if got, _ := s.Token(ctx, "https://as", "https://other"); got != nil {
		t.Errorf("a deleted token is still there: %+v", got)
	}
}

func TestFileStore_ACorruptFileIsReportedWithItsPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := oauthclient.NewFileStore(path).Token(context.Background(), "https://as", "https://rs")
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("reading a corrupt store: %v; want an error naming the file and what to do", err)
	}
}

func TestStore_ANewClientReusesTokensFromAFile(t *testing.T) {
	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{})
	path := filepath.Join(t.TempDir(), "oauth.json")
	mustReply(t, newClient(t, oauthclient.Config{Store: oauthclient.NewFileStore(path)}), ms.url)
	mustReply(t, newClient(t, oauthclient.Config{Store: oauthclient.NewFileStore(path)}), ms.url)
	if n := len(as.auths()); n != 1 {
		t.Errorf("%d authorizations, want 1: the second client should use the stored token", n)
	}
}

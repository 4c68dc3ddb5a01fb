package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

func TestLoopback_BrowserFlow(t *testing.T) {
	var opened []string
	// The "browser" follows the authorization server's redirect to the
	// loopback listener, as a real one would.
	l, err := oauthclient.NewLoopback("127.0.0.1:0", func(ctx context.Context, authURL string) error {
		opened = append(opened, authURL)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/callback" {
			t.Errorf("browser ended at %s with HTTP %d", resp.Request.URL, resp.StatusCode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !strings.HasPrefix(l.RedirectURL(), "http://127.0.0.1:") || !strings.HasSuffix(l.RedirectURL(), "/callback") {
		t.Errorf("RedirectURL = %q", l.RedirectURL())
	}

	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{})
	mustReply(t, newClient(t, oauthclient.Config{Authorizer: l}), ms.url)
	if len(opened) != 1 {
		t.Fatalf("browser opened %d times, want 1", len(opened))
	}
	if regs := as.regs(); len(regs) != 1 || !slices.Equal(asSlice(regs[0]["redirect_uris"]), []any{l.RedirectURL()}) {
		t.Errorf("registered %v, want the loopback redirect URI", regs)
	}

	// A response nobody waits for is refused.
	resp, err := http.Get(l.RedirectURL() + "?code=stolen&state=unknown")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unexpected callback: HTTP %d, want 400", resp.StatusCode)
	}
}

func TestLoopback_GivesUpWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	l, err := oauthclient.NewLoopback("127.0.0.1:0", func(context.Context, string) error {
		cancel() // the user closes the browser tab
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Authorize(ctx, "https://as.example.com/authorize?state=s1"); !errors.Is(err, context.Canceled) {
		t.Errorf("Authorize = %v, want context.Canceled", err)
	}
	if _, err := oauthclient.NewLoopback("0.0.0.0:0", func(context.Context, string) error { return nil }); err == nil {
		t.Error("a non-loopback listen address was accepted")
	}
}

func TestHeadless_NeedsAnImmediateRedirectToItsURI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login-page":
			_, _ = w.Write([]byte("<form>sign in</form>"))
		case "/to-login":
			http.Redirect(w, r, "/login-page", http.StatusFound)
		case "/ok":
			http.Redirect(w, r, headlessRedirect+"?code=c&state=s&iss="+url.QueryEscape("https://as"), http.StatusFound)
		}
	}))
	defer srv.Close()
	h := newHeadless(t)
	ctx := context.Background()
	q, err := h.Authorize(ctx, srv.URL+"/ok")
	if err != nil || q.Get("code") != "c" || q.Get("state") != "s" || q.Get("iss") != "https://as" {
		t.Errorf("Authorize(ok) = %v, %v", q, err)
	}
	if _, err := h.Authorize(ctx, srv.URL+"/login-page"); err == nil || !strings.Contains(err.Error(), "without a redirect") {
		t.Errorf("login page: %v", err)
	}
	if _, err := h.Authorize(ctx, srv.URL+"/to-login"); err == nil || !strings.Contains(err.Error(), "not to the redirect URI") {
		t.Errorf("redirect to a login page: %v", err)
	}
	if _, err := oauthclient.NewHeadless("http://example.com/callback", nil); err == nil {
		t.Error("a plain http redirect URI off localhost was accepted")
	}
}

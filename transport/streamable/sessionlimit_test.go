package streamable

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
)

// asClient passes each request to next as if it came from the remote
// address in its X-Address header and, with an X-User header, as that
// user authenticated by the auth middleware.
func asClient(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("X-Address"); a != "" {
			r.RemoteAddr = a
		}
		if u := r.Header.Get("X-User"); u != "" {
			r = r.WithContext(auth.ContextWithTokenInfo(r.Context(), &auth.TokenInfo{Issuer: "https://as.example", Subject: u}))
		}
		next.ServeHTTP(w, r)
	})
}

// initializeAs sends an initialize from the client at address (and, when
// user is not empty, authenticated as user).
func initializeAs(t *testing.T, url, address, user string) *http.Response {
	t.Helper()
	h := legacyHeaders("")
	h["X-Address"] = address
	if user != "" {
		h["X-User"] = user
	}
	return do(t, "POST", url, h, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
}

// One client cannot take more than its share of the session table: past
// MaxSessionsPerClient its initialize gets 429 and a JSON-RPC error that
// names the limit and what to do, while other clients still get sessions,
// and ending one of its sessions makes room for another.
func TestSessionsPerClientAreBounded(t *testing.T) {
	_, url := serveBehind(t, newFixture(t), &HandlerOptions{MaxSessions: 10, MaxSessionsPerClient: 2}, asClient)
	var mine []string
	for range 2 {
		resp := initializeAs(t, url, "203.0.113.7:40000", "")
		wantResponse(t, resp)
		mine = append(mine, resp.Header.Get("Mcp-Session-Id"))
	}
	refused := initializeAs(t, url, "203.0.113.7:40001", "")
	r := wantError(t, refused, http.StatusTooManyRequests, codeTransport)
	if r.ID.String() != "7" {
		t.Errorf("the refusal has id %s, want the initialize's 7", r.ID)
	}
	for _, want := range []string{"203.0.113.7", "holds 2 sessions", "DELETE", "MaxSessionsPerClient", "--max-sessions-per-client", "30m0s"} {
		if !strings.Contains(r.Error.Message, want) {
			t.Errorf("the refusal %q does not mention %q", r.Error.Message, want)
		}
	}
	if refused.Header.Get("Mcp-Session-Id") != "" {
		t.Error("the refusal carries a session ID")
	}

	wantResponse(t, initializeAs(t, url, "203.0.113.8:40000", ""))
	wantResponse(t, initializeAs(t, url, "[2001:db8::1]:40000", ""))

	wantStatus(t, do(t, "DELETE", url, hdr{"Mcp-Session-Id": mine[0], "X-Address": "203.0.113.7:40002"}, ""), http.StatusNoContent)
	wantResponse(t, initializeAs(t, url, "203.0.113.7:40003", ""))
	wantError(t, initializeAs(t, url, "203.0.113.7:40004", ""), http.StatusTooManyRequests, codeTransport)
}

// With authentication the limit is per principal: one user's sessions
// count together from any address, and users behind one address (a
// reverse proxy) each have their own.
func TestSessionsPerPrincipalAreBounded(t *testing.T) {
	_, url := serveBehind(t, newFixture(t), &HandlerOptions{MaxSessionsPerClient: 1}, asClient)
	wantResponse(t, initializeAs(t, url, "203.0.113.7:40000", "alice"))
	r := wantError(t, initializeAs(t, url, "203.0.113.9:40000", "alice"), http.StatusTooManyRequests, codeTransport)
	if !strings.Contains(r.Error.Message, `principal "https://as.example#sub:alice"`) {
		t.Errorf("the refusal %q does not name the principal", r.Error.Message)
	}
	wantResponse(t, initializeAs(t, url, "203.0.113.7:40000", "bob"))
	wantResponse(t, initializeAs(t, url, "203.0.113.7:40000", ""))
}

// The default keeps one client to 1% of the default table; a negative
// limit is no limit.
func TestDefaultSessionLimits(t *testing.T) {
	h := NewHandler(newFixture(t), nil)
	if h.opts.MaxSessions != 10000 || h.opts.MaxSessionsPerClient != 100 || h.opts.SessionIdleTimeout != DefaultSessionIdleTimeout {
		t.Errorf("defaults: %d sessions, %d per client, idle %v; want 10000, 100 and 30m", h.opts.MaxSessions, h.opts.MaxSessionsPerClient, h.opts.SessionIdleTimeout)
	}
	unbounded := NewHandler(newFixture(t), &HandlerOptions{MaxSessionsPerClient: -1})
	t.Cleanup(func() { unbounded.Shutdown(t.Context()) })
	for i := range DefaultMaxSessionsPerClient + 1 {
		if _, err := unbounded.sessions.create("", "address 203.0.113.7"); err != nil {
			t.Fatalf("session %d of one client with no per-client limit: %v", i+1, err)
		}
	}
}

// A session one instance took over from another counts against none of
// its limits, which bound the sessions started there: a client whose one
// session, started on A, is served by B may still start one on B with
// MaxSessionsPerClient 1.
func TestATakenOverSessionDoesNotCountAgainstItsClientsCap(t *testing.T) {
	store := sessions.NewMemoryStore()
	_, urlA := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour})
	b, urlB := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour, MaxSessionsPerClient: 1})
	resp := initializeAs(t, urlA, "203.0.113.7:1000", "")
	wantStatus(t, resp, http.StatusOK)
	sid := resp.Header.Get("Mcp-Session-Id")
	h := legacyHeaders(sid)
	h["X-Address"] = "203.0.113.7:1000"
	wantStatus(t, do(t, "POST", urlB, h, `{"jsonrpc":"2.0","id":9,"method":"ping"}`), http.StatusOK)
	if b.sessions.lookup(sid) == nil {
		t.Fatal("B did not take the session over")
	}
	wantResponse(t, initializeAs(t, urlB, "203.0.113.7:1000", ""))
	wantError(t, initializeAs(t, urlB, "203.0.113.7:1000", ""), http.StatusTooManyRequests, codeTransport)
}

// The same for MaxSessions: a session taken over does not fill the table
// of the instance that took it over.
func TestATakenOverSessionDoesNotCountAgainstTheTableCap(t *testing.T) {
	store := sessions.NewMemoryStore()
	_, urlA := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour})
	b, urlB := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour, MaxSessions: 1})
	sid := initSession(t, urlA, mcp.Version20251125)
	wantStatus(t, do(t, "POST", urlB, legacyHeaders(sid), `{"jsonrpc":"2.0","id":9,"method":"ping"}`), http.StatusOK)
	if b.sessions.lookup(sid) == nil {
		t.Fatal("B did not take the session over")
	}
	wantResponse(t, initializeAs(t, urlB, "198.51.100.9:1000", ""))
	wantStatus(t, initializeAs(t, urlB, "198.51.100.10:1000", ""), http.StatusServiceUnavailable)
}

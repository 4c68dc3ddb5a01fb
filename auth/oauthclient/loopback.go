package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// Loopback is an [Authorizer] for a user at a browser on the same machine,
// as a CLI has: it listens on a loopback address, has the caller open the
// authorization URL in a browser, and receives the redirect back at
// http://127.0.0.1:<port>/callback (RFC 8252 section 7.3). Close it when
// done.
type Loopback struct {
	open     func(ctx context.Context, authURL string) error
	srv      *http.Server
	redirect string

	mu      sync.Mutex
	waiting map[string]chan url.Values // by state
}

// NewLoopback listens on addr, which must be a loopback address with a port
// ("127.0.0.1:0" picks a free port; a fixed port keeps the redirect URI
// stable, as client ID metadata documents need), and returns an authorizer
// that calls open to send the user's browser to each authorization URL.
func NewLoopback(addr string, open func(ctx context.Context, authURL string) error) (*Loopback, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !fetch.IsLoopbackHost(host) {
		return nil, fmt.Errorf("oauthclient: loopback address %q must be a loopback host and port, such as 127.0.0.1:0", addr)
	}
	if open == nil {
		return nil, errors.New("oauthclient: NewLoopback needs a func that opens the browser")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("oauthclient: listen for the authorization redirect: %w", err)
	}
	l := &Loopback{
		open:     open,
		redirect: "http://" + ln.Addr().String() + "/callback",
		waiting:  map[string]chan url.Values{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

// RedirectURL returns http://<listen address>/callback.
func (l *Loopback) RedirectURL() string { return l.redirect }

// Close stops listening; authorizations under way fail with their context.
func (l *Loopback) Close() error { return l.srv.Close() }

// Authorize opens authURL in the browser and waits for the redirect that
// carries the same state, or for ctx to end.
func (l *Loopback) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization URL: %w", err)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("authorization URL has no state to match the redirect with")
	}
	ch := make(chan url.Values, 1)
	l.mu.Lock()
	l.waiting[state] = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.waiting, state)
		l.mu.Unlock()
	}()
	if err := l.open(ctx, authURL); err != nil {
		return nil, fmt.Errorf("open the browser (visit the authorization URL by hand if needed): %w", err)
	}
	select {
	case q := <-ch:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the browser to return from the authorization server: %w", ctx.Err())
	}
}

// callback receives the authorization response and hands it to the
// Authorize call that sent the same state.
func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l.mu.Lock()
	ch := l.waiting[q.Get("state")]
	delete(l.waiting, q.Get("state"))
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if ch == nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("This sign-in response was not expected. Start the sign-in again from the application."))
		return
	}
	ch <- q
	fmt.Fprint(w, page("The application received the authorization response. You can close this window."))
}

func page(msg string) string {
	return "<!doctype html><title>Authorization</title><p>" + html.EscapeString(msg) + "</p>"
}

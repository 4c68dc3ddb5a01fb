package cli

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/auth/oauthclient"
)

// OAuth for the client commands. A server that answers 401 with an OAuth
// challenge gets the user's authorization the way a native app gets it
// (RFC 8252): the authorization URL opens in the browser, and the redirect
// comes back to a loopback port. Tokens, refresh tokens and client
// registrations are kept in the user's config folder (oauth.json), so the
// next command needs no browser; DPoP-bound tokens are bound to a key kept
// beside them (dpop-key.pem).

// defaultAuthorizeTimeout bounds the wait for the user to authorize in the
// browser, unless WEFT_OAUTH_TIMEOUT (a duration such as 30s) says
// otherwise.
const defaultAuthorizeTimeout = 5 * time.Minute

// defaultOAuthPort is the loopback port the authorization redirect comes
// back to, unless WEFT_OAUTH_PORT names another. A fixed port keeps the
// redirect URI of a registration valid from one run to the next.
const defaultOAuthPort = "33418"

// configDir is weft's folder for user settings and credentials:
// $XDG_CONFIG_HOME/weft, else weft in os.UserConfigDir().
func configDir() (string, error) {
	if dir := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "weft"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the folder for weft's credentials: %w", err)
	}
	return filepath.Join(dir, "weft"), nil
}

// authTransport sends requests as they are until a server asks for OAuth
// (401 with a Bearer or DPoP challenge); from then on it sends them through
// an oauthclient transport, set up on that first challenge, that
// authorizes and presents tokens. A command against a server without
// authorization touches no credentials.
type authTransport struct {
	e    *env
	base http.RoundTripper

	once   sync.Once
	oauth  http.RoundTripper
	err    error
	active atomic.Bool
}

func newAuthTransport(e *env) *authTransport {
	return &authTransport{e: e, base: http.DefaultTransport}
}

func (a *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.active.Load() {
		return a.oauth.RoundTrip(req)
	}
	body, err := bufferBody(req)
	if err != nil {
		return nil, err
	}
	resp, err := a.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || !oauthChallenge(resp.Header) {
		return resp, err
	}
	a.once.Do(func() { a.oauth, a.err = a.setUp() })
	if a.err != nil {
		resp.Body.Close()
		return nil, a.err
	}
	a.active.Store(true)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	retry := req.Clone(req.Context())
	if body != nil {
		retry.Body = io.NopCloser(bytes.NewReader(body))
	}
	return a.oauth.RoundTrip(retry)
}

// bufferBody reads the request's body so that it can be sent again, and
// puts a fresh reader of it back.
func bufferBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return b, nil
}

// oauthChallenge reports whether h asks for an OAuth access token.
func oauthChallenge(h http.Header) bool {
	for _, v := range h.Values("WWW-Authenticate") {
		scheme, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "DPoP") {
			return true
		}
	}
	return false
}

// setUp makes the oauthclient transport, with its store and DPoP key in
// the config folder.
func (a *authTransport) setUp() (http.RoundTripper, error) {
	dir, err := configDir()
	if err != nil {
		return nil, err
	}
	key, err := dpopKey(filepath.Join(dir, "dpop-key.pem"))
	if err != nil {
		return nil, err
	}
	port := os.Getenv("WEFT_OAUTH_PORT")
	if port == "" {
		port = defaultOAuthPort
	}
	c, err := oauthclient.New(oauthclient.Config{
		Authorizer: &browserAuthorizer{e: a.e, addr: "127.0.0.1:" + port},
		Store:      oauthclient.NewFileStore(filepath.Join(dir, "oauth.json")),
		DPoPKey:    key,
		ClientName: "weft command line",
		ClientURI:  "https://github.com/weftmcp/weft",
		Logger:     a.e.logger(),
	})
	if err != nil {
		return nil, err
	}
	return c.Transport(a.base), nil
}

// dpopKey reads the P-256 key DPoP proofs are signed with from path,
// creating it (readable by the user only) on first use.
func dpopKey(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		block, _ := pem.Decode(b)
		if block == nil {
			return nil, fmt.Errorf("%s holds no PEM key; delete it to have a new one made", path)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w; delete it to have a new one made", path, err)
		}
		signer, ok := k.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("%s holds a key that cannot sign; delete it to have a new one made", path)
		}
		return signer, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the DPoP key: %w", err)
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the folder for weft's credentials: %w", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, fmt.Errorf("writing the DPoP key: %w", err)
	}
	return k, nil
}

// browserAuthorizer is the user at a browser on this machine: it listens
// at addr for the redirect only while an authorization is under way.
type browserAuthorizer struct {
	e    *env
	addr string // loopback HOST:PORT the redirect comes back to
}

// RedirectURL is the loopback callback.
func (b *browserAuthorizer) RedirectURL() string { return "http://" + b.addr + "/callback" }

// Authorize sends the browser to authURL and waits for the redirect, for
// at most the authorization timeout.
func (b *browserAuthorizer) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	timeout := defaultAuthorizeTimeout
	if v := os.Getenv("WEFT_OAUTH_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("WEFT_OAUTH_TIMEOUT %q is not a positive duration such as 2m", v)
		}
		timeout = d
	}
	lb, err := oauthclient.NewLoopback(b.addr, b.open)
	if err != nil {
		return nil, fmt.Errorf("%w; set WEFT_OAUTH_PORT to a free port (the redirect must come back to this machine)", err)
	}
	defer lb.Close()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout,
		fmt.Errorf("no authorization arrived within %v (WEFT_OAUTH_TIMEOUT); authorize in the browser, then run the command again", timeout))
	defer cancel()
	v, err := lb.Authorize(ctx, authURL)
	if err != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return v, err
}

// open shows the authorization URL on stderr and opens it in the browser:
// the command in $WEFT_BROWSER, else in $BROWSER, else the system's.
func (b *browserAuthorizer) open(_ context.Context, authURL string) error {
	fmt.Fprintf(b.e.stderr, "weft: the server needs your authorization; opening your browser at\n  %s\n", authURL)
	name, args := browserCommand()
	if name == "" {
		fmt.Fprintln(b.e.stderr, "weft: no browser to open; open that URL yourself")
		return nil
	}
	cmd := exec.Command(name, append(args, authURL)...)
	cmd.Stdout, cmd.Stderr = b.e.stderr, b.e.stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(b.e.stderr, "weft: could not open a browser (%v); open that URL yourself\n", err)
		return nil
	}
	go cmd.Wait() // a browser may outlive the command
	return nil
}

// browserCommand names the program that opens a URL.
func browserCommand() (string, []string) {
	for _, v := range []string{"WEFT_BROWSER", "BROWSER"} {
		if cmd := strings.TrimSpace(os.Getenv(v)); cmd != "" {
			return cmd, nil
		}
	}
	switch runtime.GOOS {
	case "darwin":
		return "open", nil
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler"}
	}
	if p, err := exec.LookPath("xdg-open"); err == nil {
		return p, nil
	}
	return "", nil
}

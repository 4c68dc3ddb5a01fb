package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/streamable"
)

// The server behind the auth package's OAuth resource server, over real
// loopback HTTP with real JWTs: the principal each token names owns its
// sessions and tasks on both wires, and scopes are enforced before dispatch
// (auth.Authorize) and by handlers (auth.RequireScopes) with 401 and 403.

// jwtIssuer is an authorization server that publishes a JWK Set over
// loopback HTTP and signs access tokens with a key made for the test.
type jwtIssuer struct {
	url string
	key *ecdsa.PrivateKey
}

func newJWTIssuer(t *testing.T) *jwtIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &jwtIssuer{key: key}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}}
		b, err := json.Marshal(set)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(hs.Close)
	is.url = hs.URL
	return is
}

// token returns an access token for subject at audience granting scopes.
func (is *jwtIssuer) token(t *testing.T, subject, audience string, scopes ...string) string {
	t.Helper()
	now := time.Now()
	claims, err := json.Marshal(map[string]any{
		"iss": is.url, "sub": subject, "aud": audience, "client_id": "test-client",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": strings.Join(scopes, " "),
	})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// authedEndpoint is s served over Streamable HTTP behind an OAuth resource
// server that needs scope "mcp" on every request and "admin" for tool
// "admin_only", and trusts the returned issuer.
type authedEndpoint struct {
	url    string
	rs     *auth.ResourceServer
	issuer *jwtIssuer
}

func mountWithAuth(t *testing.T, s *Server) *authedEndpoint {
	t.Helper()
	h := streamable.NewHandler(s, &streamable.HandlerOptions{Logger: quietLogger})
	e := protect(t, h)
	t.Cleanup(func() { // first: its streams would keep the test server waiting
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		h.Shutdown(ctx)
	})
	return e
}

// protect serves h at /mcp of a loopback test server, behind the resource
// server of authedEndpoint.
func protect(t *testing.T, h http.Handler) *authedEndpoint {
	t.Helper()
	is := newJWTIssuer(t)
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String() + "/mcp"
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: is.url, Audience: url, JWKSURL: is.url + "/jwks", Algorithms: []string{"ES256"}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Resource: url, AuthorizationServers: []string{is.url}, Verifier: v,
		Scopes: []string{"mcp"}, ToolScopes: map[string][]string{"admin_only": {"admin"}}})
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = rs.Handler(h)
	hs.Start()
	t.Cleanup(hs.Close)
	return &authedEndpoint{url: url, rs: rs, issuer: is}
}

// bearer returns the Authorization header of a token for subject with
// scope "mcp" and the extra scopes.
func (e *authedEndpoint) bearer(t *testing.T, subject string, scopes ...string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + e.issuer.token(t, subject, e.url, append([]string{"mcp"}, scopes...)...)}
}

// authServer is taskServer plus "admin_only" (guarded by Config.ToolScopes)
// and "needs_write" (which demands scope "write" itself).
func authServer(t *testing.T, rt *tasks.Runtime, g *gate) *Server {
	s := taskServer(t, rt, g, nil)
	AddTool(s, &mcp.Tool{Name: "admin_only"}, func(context.Context, *Request, struct{}) (string, error) {
		return "admin done", nil
	})
	AddTool(s, &mcp.Tool{Name: "needs_write"}, func(ctx context.Context, _ *Request, _ struct{}) (string, error) {
		if err := auth.RequireScopes(ctx, "write"); err != nil {
			return "", err
		}
		return "written", nil
	})
	return s
}

// with returns the headers of a and b together.
func with(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// legacySession initializes a 2025-11-25 session with the headers and
// returns the headers of its later requests.
func legacySession(t *testing.T, url string, hdr map[string]string) map[string]string {
	t.Helper()
	init := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, hdr)
	sid := init.Header.Get("Mcp-Session-Id")
	if init.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s", init.Status)
	}
	nextMessage(t, messages(t, init))
	s := with(hdr, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": mcp.Version20251125})
	if r := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, s); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", r.Status)
	}
	return s
}

// modernCall POSTs a modern request of method with params (without _meta)
// and the routing headers, and returns the HTTP response.
func modernCall(t *testing.T, url, method, name, params string, hdr map[string]string) *http.Response {
	t.Helper()
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:%s}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities, extCaps)
	h := with(hdr, map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": method})
	if name != "" {
		h["Mcp-Name"] = name
	}
	if rest := strings.TrimSuffix(strings.TrimPrefix(params, "{"), "}"); rest != "" {
		meta += "," + rest
	}
	return post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":{%s}}`, method, meta), h)
}

// wantChallenge checks that resp refused with status and a Bearer challenge
// whose parameters include want.
func wantChallenge(t *testing.T, what string, resp *http.Response, status int, want map[string]string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s: %s, want %d", what, resp.Status, status)
		return
	}
	c, ok := auth.BearerChallenge(resp.Header)
	if !ok {
		t.Errorf("%s: no Bearer challenge in %q", what, resp.Header.Values("WWW-Authenticate"))
		return
	}
	for k, v := range want {
		if got := c.Params[k]; !strings.Contains(" "+got+" ", " "+v+" ") {
			t.Errorf("%s: challenge %s=%q, want it to hold %q", what, k, got, v)
		}
	}
}

func TestAuthHTTP_AMissingTokenGets401WithTheResourceMetadata(t *testing.T) {
	e := mountWithAuth(t, authServer(t, newRuntime(t), newGate()))
	init := post(t, e.url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	wantChallenge(t, "legacy initialize without a token", init, http.StatusUnauthorized, map[string]string{auth.ParamResourceMetadata: e.rs.MetadataURL()})
	list := modernCall(t, e.url, mcp.MethodToolsList, "", `{}`, nil)
	wantChallenge(t, "modern tools/list without a token", list, http.StatusUnauthorized, map[string]string{auth.ParamResourceMetadata: e.rs.MetadataURL()})
}

func TestAuthHTTP_AToolNeedingAScopeGets403WithTheScope(t *testing.T) {
	e := mountWithAuth(t, authServer(t, newRuntime(t), newGate()))
	alice := e.bearer(t, "alice")
	session := legacySession(t, e.url, alice)
	call := func(tool string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tool)
	}
	// Config.ToolScopes, checked by the transport before the server sees
	// the call.
	wantChallenge(t, "legacy admin_only", post(t, e.url, call("admin_only"), session), http.StatusForbidden,
		map[string]string{auth.ParamError: auth.ErrorInsufficientScope, auth.ParamScope: "admin"})
	wantChallenge(t, "modern admin_only", modernCall(t, e.url, mcp.MethodToolsCall, "admin_only", `{"name":"admin_only","arguments":{}}`, alice),
		http.StatusForbidden, map[string]string{auth.ParamError: auth.ErrorInsufficientScope, auth.ParamScope: "admin"})
	// auth.RequireScopes in the handler: the server hands the error to the
	// transport, which refuses before anything of the response is sent.
	wantChallenge(t, "legacy needs_write", post(t, e.url, call("needs_write"), session), http.StatusForbidden,
		map[string]string{auth.ParamError: auth.ErrorInsufficientScope, auth.ParamScope: "write"})
	wantChallenge(t, "modern needs_write", modernCall(t, e.url, mcp.MethodToolsCall, "needs_write", `{"name":"needs_write","arguments":{}}`, alice),
		http.StatusForbidden, map[string]string{auth.ParamError: auth.ErrorInsufficientScope, auth.ParamScope: "write"})

	// Stepped up, with a token for the same principal, both succeed, in the
	// same legacy session.
	stepped := e.bearer(t, "alice", "admin", "write")
	for tool, want := range map[string]string{"admin_only": "admin done", "needs_write": "written"} {
		got := nextMessage(t, messages(t, post(t, e.url, call(tool), with(session, stepped))))
		if text1(t, []byte(member(t, got, "result"))) != want {
			t.Errorf("legacy %s with the scope answered %s", tool, got)
		}
		got = nextMessage(t, messages(t, modernCall(t, e.url, mcp.MethodToolsCall, tool, `{"name":"`+tool+`","arguments":{}}`, stepped)))
		if text1(t, []byte(member(t, got, "result"))) != want {
			t.Errorf("modern %s with the scope answered %s", tool, got)
		}
	}
}

func TestAuthHTTP_PrincipalsCannotReachEachOthersLegacySessionsOrTasks(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	e := mountWithAuth(t, authServer(t, rt, g))
	alice, bob := e.bearer(t, "alice"), e.bearer(t, "bob")
	aliceSession := legacySession(t, e.url, alice)
	created := nextMessage(t, messages(t, post(t, e.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{},"task":{}}}`, aliceSession)))
	id := strings.Trim(member(t, created, "result", "task", "taskId"), `"`)
	if id == "" {
		t.Fatalf("tools/call answered %s", created)
	}
	g.awaitStart(t)

	// Alice's session ID with Bob's token: the session does not exist.
	stolen := with(aliceSession, bob)
	if r := post(t, e.url, `{"jsonrpc":"2.0","id":3,"method":"tasks/list","params":{}}`, stolen); r.StatusCode != http.StatusNotFound {
		t.Errorf("Bob in Alice's session: %s, want 404", r.Status)
	}
	// From his own session, Alice's task does not exist either.
	bobSession := legacySession(t, e.url, bob)
	for i, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksCancel} {
		got := nextMessage(t, messages(t, post(t, e.url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"taskId":%q}}`, 10+i, m, id), bobSession)))
		if member(t, got, "error", "code") != "-32602" {
			t.Errorf("Bob's %s of Alice's task answered %s, want -32602 as for a missing task", m, got)
		}
	}
	if got := nextMessage(t, messages(t, post(t, e.url, `{"jsonrpc":"2.0","id":12,"method":"tasks/list","params":{}}`, bobSession))); strings.Contains(string(got), id) {
		t.Errorf("Bob's tasks/list shows Alice's task: %s", got)
	}
	// The task belongs to Alice, not to her session: a new session of hers
	// sees it, still working.
	again := legacySession(t, e.url, alice)
	if got := nextMessage(t, messages(t, post(t, e.url, fmt.Sprintf(`{"jsonrpc":"2.0","id":13,"method":"tasks/get","params":{"taskId":%q}}`, id), again))); member(t, got, "result", "status") != `"working"` {
		t.Errorf("Alice's tasks/get from another session answered %s", got)
	}
	g.release()
	awaitStatus(t, rt, e.issuer.url+"#sub:alice", id, tasks.StatusCompleted)
}

func TestAuthHTTP_PrincipalsCannotReachEachOthersModernTasks(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	e := mountWithAuth(t, authServer(t, rt, g))
	alice, bob := e.bearer(t, "alice"), e.bearer(t, "bob")
	created := nextMessage(t, messages(t, modernCall(t, e.url, mcp.MethodToolsCall, "hold", `{"name":"hold","arguments":{}}`, alice)))
	id := strings.Trim(member(t, created, "result", "taskId"), `"`)
	if id == "" {
		t.Fatalf("tools/call answered %s", created)
	}
	g.awaitStart(t)
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksCancel} {
		resp := modernCall(t, e.url, m, id, fmt.Sprintf(`{"taskId":%q}`, id), bob)
		if got := nextMessage(t, messages(t, resp)); member(t, got, "error", "code") != "-32602" {
			t.Errorf("Bob's %s of Alice's task answered %s, want -32602 as for a missing task", m, got)
		}
	}
	resp := modernCall(t, e.url, mcp.MethodTasksGet, id, fmt.Sprintf(`{"taskId":%q}`, id), alice)
	if got := nextMessage(t, messages(t, resp)); member(t, got, "result", "status") != `"working"` {
		t.Errorf("Alice's tasks/get answered %s", got)
	}
	g.release()
	awaitStatus(t, rt, e.issuer.url+"#sub:alice", id, tasks.StatusCompleted)
}

func TestAuthHTTP_SSESessionsBelongToThePrincipalThatOpenedThem(t *testing.T) {
	h := sse.NewHandler(authServer(t, newRuntime(t), newGate()), &sse.HandlerOptions{Logger: quietLogger})
	e := protect(t, h)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	alice, bob := e.bearer(t, "alice"), e.bearer(t, "bob")
	req, err := http.NewRequest(http.MethodGet, e.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", alice["Authorization"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := sse.NewReader(resp.Body, 0)
	ev, err := events.Next()
	if err != nil || ev.Name != "endpoint" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	endpoint := strings.TrimSuffix(e.url, "/mcp") + string(ev.Data)
	send := func(body string, hdr map[string]string) *http.Response {
		r := post(t, endpoint, body, hdr)
		r.Body.Close()
		return r
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	if r := send(initialize, bob); r.StatusCode != http.StatusNotFound {
		t.Errorf("Bob's POST to Alice's session: %s, want 404", r.Status)
	}
	if r := send(initialize, alice); r.StatusCode != http.StatusAccepted {
		t.Fatalf("Alice's POST to her session: %s, want 202", r.Status)
	}
	if ev, err := events.Next(); err != nil || member(t, ev.Data, "result", "protocolVersion") != `"2024-11-05"` {
		t.Fatalf("the initialize answer: %s, %v", ev.Data, err)
	}
	wantChallenge(t, "admin_only over HTTP+SSE", send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin_only","arguments":{}}}`, alice),
		http.StatusForbidden, map[string]string{auth.ParamError: auth.ErrorInsufficientScope, auth.ParamScope: "admin"})
}

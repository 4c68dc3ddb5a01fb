package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/console"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/sse"
)

// rig is a console over a memory Runtime whose "hold" tasks run until
// released, served on loopback.
type rig struct {
	rt      *tasks.Runtime
	store   *tasks.MemoryStore
	url     string
	release chan struct{}
}

func newRig(t *testing.T, opts console.Options) *rig {
	t.Helper()
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	rt, err := tasks.New(store, bus)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{rt: rt, store: store, release: make(chan struct{})}
	t.Cleanup(func() {
		close(r.release)
		rt.Close(context.Background())
	})
	rt.Register("tools/call", "hold", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		select {
		case <-r.release:
			return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
		case <-ctx.Done():
			return tasks.Result{}, context.Cause(ctx)
		}
	}, tasks.Policy{})
	opts.Runtime, opts.Store, opts.Bus = rt, store, bus
	c, err := console.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/"
	return r
}

func (r *rig) start(t *testing.T, principal string) string {
	t.Helper()
	task, err := r.rt.Start(context.Background(), tasks.StartRequest{Principal: principal, Method: "tools/call", Name: "hold"})
	if err != nil {
		t.Fatal(err)
	}
	return task.ID
}

type listed struct {
	Tasks []struct{ ID, Principal, Status string }
	Next  string
}

func get(t *testing.T, url string, into any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if into != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func TestNewRefusesAStoreOrBusWithoutTheOperatorInterfaces(t *testing.T) {
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	rt, err := tasks.New(store, bus)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	type plainStore struct{ tasks.Store }
	type plainBus struct{ tasks.Bus }
	for _, o := range []console.Options{
		{Runtime: rt, Store: plainStore{store}, Bus: bus},
		{Runtime: rt, Store: store, Bus: plainBus{bus}},
		{Store: store, Bus: bus},
		{Runtime: rt, Store: store, Bus: bus, PageSize: 501},
	} {
		if _, err := console.New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

// The listing pages newest first across principals, by cursor, and
// refuses a status or cursor it does not know.
func TestListPagesNewestFirst(t *testing.T) {
	r := newRig(t, console.Options{PageSize: 2})
	var ids []string
	for _, p := range []string{"alice", "bob", "carol"} {
		ids = append([]string{r.start(t, p)}, ids...)
	}
	var first, second listed
	get(t, r.url+"api/tasks", &first)
	if len(first.Tasks) != 2 || first.Tasks[0].ID != ids[0] || first.Tasks[1].ID != ids[1] || first.Next == "" {
		t.Fatalf("the first page is %+v, want %v with a next cursor", first, ids[:2])
	}
	get(t, r.url+"api/tasks?cursor="+first.Next, &second)
	if len(second.Tasks) != 1 || second.Tasks[0].ID != ids[2] || second.Next != "" {
		t.Fatalf("the second page is %+v, want %v and no more", second, ids[2:])
	}
	var bob listed
	get(t, r.url+"api/tasks?principal=bob", &bob)
	if len(bob.Tasks) != 1 || bob.Tasks[0].Principal != "bob" {
		t.Errorf("bob's tasks: %+v", bob)
	}
	for _, q := range []string{"status=running", "cursor=bogus"} {
		if code := get(t, r.url+"api/tasks?"+q, nil); code != http.StatusBadRequest {
			t.Errorf("api/tasks?%s: %d, want 400", q, code)
		}
	}
	if code := get(t, r.url+"api/tasks/nosuchtask", nil); code != http.StatusNotFound {
		t.Errorf("a missing task's detail: %d, want 404", code)
	}
}

// The event stream sends a task's row when it starts and when it changes,
// then the totals.
func TestEventsFollowTasks(t *testing.T) {
	r := newRig(t, console.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url+"api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := bufio.NewReader(resp.Body)
	next := func(want string) string {
		t.Helper()
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("the stream ended waiting for %s: %v", want, err)
			}
			if strings.TrimSpace(line) == "event: "+want {
				data, _ := events.ReadString('\n')
				return strings.TrimPrefix(strings.TrimSpace(data), "data: ")
			}
		}
	}
	next("hello")
	id := r.start(t, "alice")
	if row := next("task"); !strings.Contains(row, `"id":"`+id+`"`) || !strings.Contains(row, `"status":"working"`) {
		t.Fatalf("the first task event is %s, want %s working", row, id)
	}
	if _, err := r.rt.Cancel(ctx, "alice", id); err != nil {
		t.Fatal(err)
	}
	for row := next("task"); !strings.Contains(row, `"status":"cancelled"`); row = next("task") {
	}
	if totals := next("totals"); !strings.Contains(totals, `"cancelled":1`) {
		t.Errorf("the totals after the cancel are %s", totals)
	}
}

// Every response forbids framing and inline script, and is never cached.
func TestResponsesCarrySecurityHeaders(t *testing.T) {
	r := newRig(t, console.Options{})
	resp, err := http.Get(r.url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	h := resp.Header
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", h)
	}
	if strings.Contains(string(page), "<script>") {
		t.Error("the page has an inline script, which its own policy forbids")
	}
}

// The console's own page, served at a name the operator allowed
// (OriginPolicy.AllowedHosts, as behind a reverse proxy), may cancel: its
// Origin is the console's own, even though the policy admits no other
// page of that name; a page of another origin may not.
func TestOwnPageAtAnAllowedHostMayCancel(t *testing.T) {
	r := newRig(t, console.Options{Origins: sse.OriginPolicy{AllowedHosts: []string{"console.test"}}})
	id := r.start(t, "alice")
	send := func(method, path, origin, csrf string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, r.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "console.test"
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if csrf != "" {
			req.Header.Set("X-Weft-Console-Csrf", csrf)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, page := send(http.MethodGet, "", "", "")
	m := regexp.MustCompile(`name="weft-csrf" content="([^"]+)"`).FindStringSubmatch(page)
	if code != http.StatusOK || m == nil {
		t.Fatalf("the page at the allowed host: %d, with no CSRF token in it", code)
	}
	if code, body := send(http.MethodPost, "api/tasks/"+id+"/cancel", "http://evil.test", m[1]); code != http.StatusForbidden {
		t.Errorf("a cancel from another origin: %d %s, want 403", code, body)
	}
	if code, body := send(http.MethodPost, "api/tasks/"+id+"/cancel", "http://console.test", m[1]); code != http.StatusOK || !strings.Contains(body, `"status":"cancelled"`) {
		t.Errorf("a cancel from the console's own page: %d %s, want 200 and the task cancelled", code, body)
	}
}

// On an address that is not loopback, where a token is required, the
// console's own page may sign in: its Origin is its own, though the
// endpoint's Origin rule admits no page of that name; a page of another
// origin may not.
func TestOwnPageOnAPublicAddressMaySignIn(t *testing.T) {
	c := newTokenConsole(t)
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 8081}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, public)))
	}))
	t.Cleanup(srv.Close)
	csrf := csrfOf(t, srv.URL+"/")
	for origin, want := range map[string]int{"http://console.example.com": http.StatusNoContent, "http://evil.example.com": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/session", strings.NewReader("token=t"))
		req.Host = "console.example.com"
		req.Header.Set("Origin", origin)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Weft-Console-Csrf", csrf)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("a sign-in from %s: %d %s, want %d", origin, resp.StatusCode, body, want)
		}
	}
}

// The sign-in cookie, which holds the access token, is scoped to the path
// the console is mounted at, so that a browser sends the token to the
// console only and not to the application's other handlers on the host.
func TestSignInCookieIsScopedToTheConsolesPath(t *testing.T) {
	c := newTokenConsole(t)
	mux := http.NewServeMux()
	mux.Handle("/ops/console/", http.StripPrefix("/ops/console", c))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	csrf := csrfOf(t, srv.URL+"/ops/console/")
	for _, path := range []string{"session", "session/end"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ops/console/"+path, strings.NewReader("token=t"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Weft-Console-Csrf", csrf)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cookies := resp.Cookies()
		if resp.StatusCode != http.StatusNoContent || len(cookies) != 1 || cookies[0].Path != "/ops/console/" {
			t.Errorf("POST %s: %d, cookies %v; want 204 and the cookie's path /ops/console/", path, resp.StatusCode, cookies)
		}
	}
}

// newTokenConsole returns a console over a runtime of its own whose
// verifier takes any token as an operator's.
func newTokenConsole(t *testing.T) *console.Console {
	t.Helper()
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	rt, err := tasks.New(store, bus)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{Subject: "ops", Scopes: []string{console.DefaultAdminScope}}, nil
	})
	c, err := console.New(console.Options{Runtime: rt, Store: store, Bus: bus, Verifier: verifier})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

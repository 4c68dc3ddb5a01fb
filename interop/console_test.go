package interop_test

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/console"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// consoleRig is a Runtime with the console over it, served on loopback,
// and tools whose tasks the test steps by hand.
type consoleRig struct {
	rt  *tasks.Runtime
	url string

	mu    sync.Mutex
	steps map[string]chan string // per task: progress messages; closed to finish
	ended chan string            // the IDs of step tasks whose handler saw its context end

	// lists, when set, receives each list read (GET api/tasks) once the
	// console has answered it, and holds the answer until released.
	lists atomic.Pointer[chan heldList]
}

// heldList is a list read the console answered and the rig holds back.
type heldList struct {
	body    string        // the answer, as read when the request came
	release chan struct{} // closed to send it to the page
}

// serve passes the request to the console, holding a list's answer while
// the test asks for it (see holdLists).
func (rig *consoleRig) serve(c http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lists := rig.lists.Load()
		if lists == nil || r.URL.Path != "/api/tasks" {
			c.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, r)
		held := heldList{body: rec.Body.String(), release: make(chan struct{})}
		select {
		case *lists <- held:
		case <-r.Context().Done():
			return
		}
		select {
		case <-held.release:
		case <-r.Context().Done():
			return
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// holdLists makes every later list read wait for the test, which receives
// them on the returned channel.
func (rig *consoleRig) holdLists() <-chan heldList {
	lists := make(chan heldList)
	rig.lists.Store(&lists)
	return lists
}

// The tools of the rig.
const (
	toolStep   = "step"   // reports each message sent on its channel, completes when it is closed
	toolScript = "render" // completes at once with markup in its output
	toolFail   = "deploy" // fails with a JSON-RPC error
	toolAsk    = "approve"
)

// scriptOutput is a tool output that would run script if rendered as markup.
const scriptOutput = `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><b>bold</b>`

func newConsoleRig(t *testing.T, verifier auth.Verifier) *consoleRig {
	t.Helper()
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	audit := console.NewAuditRecorder(nil, 0, 0)
	rt, err := tasks.New(store, bus, tasks.WithInstanceID("instance-a"), tasks.WithLogger(slog.New(audit)),
		tasks.WithProgressInterval(time.Millisecond), tasks.WithTTL(time.Hour, 24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	rig := &consoleRig{rt: rt, steps: make(map[string]chan string), ended: make(chan string, 16)}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rt.Close(ctx)
	})
	rt.Register("tools/call", toolStep, func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		steps := rig.stepsOf(x.TaskID())
		for {
			select {
			case msg, ok := <-steps:
				if !ok {
					return tasks.Result{Value: stdjson.RawMessage(`{"content":[{"type":"text","text":"all steps done"}]}`)}, nil
				}
				x.Progress(msg)
			case <-ctx.Done():
				rig.ended <- x.TaskID()
				return tasks.Result{}, context.Cause(ctx)
			}
		}
	}, tasks.Policy{})
	rt.Register("tools/call", toolScript, func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: stdjson.RawMessage(`{"content":[{"type":"text","text":` + strconv.Quote(scriptOutput) + `}]}`)}, nil
	}, tasks.Policy{})
	rt.Register("tools/call", toolFail, func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{}, &jsonrpc.Error{Code: -32603, Message: "the target cluster refused the deployment"}
	}, tasks.Policy{})
	rt.Register("tools/call", toolAsk, func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		_, err := x.Ask(ctx, stdjson.RawMessage(`{"method":"elicitation/create","params":{"message":"Deploy build 1432 to production?",`+
			`"requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean"}}}}}`))
		return tasks.Result{Value: stdjson.RawMessage(`{"content":[]}`)}, err
	}, tasks.Policy{})

	c, err := console.New(console.Options{Runtime: rt, Store: store, Bus: bus, Verifier: verifier, Audit: audit})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rig.serve(c), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	rig.url = "http://" + ln.Addr().String() + "/"
	return rig
}

func (rig *consoleRig) stepsOf(id string) chan string {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	ch := rig.steps[id]
	if ch == nil {
		ch = make(chan string)
		rig.steps[id] = ch
	}
	return ch
}

// start starts a task of the tool for the principal.
func (rig *consoleRig) start(t *testing.T, principal, tool string) string {
	t.Helper()
	task, err := rig.rt.Start(context.Background(), tasks.StartRequest{Principal: principal, Method: "tools/call", Name: tool,
		Params: stdjson.RawMessage(`{"name":"` + tool + `","arguments":{}}`)})
	if err != nil {
		t.Fatal(err)
	}
	return task.ID
}

// row is the JavaScript selecting the task's row.
func row(id string) string { return `document.querySelector('tr[data-id="` + id + `"]')` }

// TestConsoleInBrowser drives the console page in headless Chromium: tasks
// appear as they start, follow their progress, finish, and are cancelled
// from the page (and their handler stops); a tool's output containing
// <script> is shown as text and runs nothing.
func TestConsoleInBrowser(t *testing.T) {
	rig := newConsoleRig(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := startBrowser(t, ctx, 1440, 900)
	b.navigate(rig.url)
	b.waitFor("the event stream to be live", `document.getElementById('live').textContent.startsWith('live')`)

	// A task appears as it starts, and follows its progress.
	stepping := rig.start(t, "https://auth.example.com#sub:alice", toolStep)
	b.waitFor("the new task's row", row(stepping)+`.dataset.status === 'working'`)
	rig.stepsOf(stepping) <- "copied 1 of 4 shards"
	b.waitFor("the first progress report", row(stepping)+`.querySelector('.message').textContent === 'copied 1 of 4 shards' && `+
		row(stepping)+`.querySelector('progress').value === 25`)
	rig.stepsOf(stepping) <- "copied 3 of 4 shards"
	b.waitFor("the second progress report", row(stepping)+`.querySelector('progress').value === 75`)
	if got := b.waitFor("the lease holder", row(stepping)+`.querySelector('.owner').textContent`); got != "instance-a" {
		t.Errorf("the running task's instance shows %q, want instance-a", got)
	}

	// A tool's output is data: markup in it is shown as text.
	rendering := rig.start(t, "https://auth.example.com#sub:bob", toolScript)
	b.waitFor("the markup task to complete", row(rendering)+`.dataset.status === 'completed'`)
	b.do(row(rendering) + `.querySelector('.id button').click()`)
	shown := b.waitFor("the result in the detail", `document.querySelector('#detail-body pre.result')?.textContent`)
	if !strings.Contains(shown, `<script>window.pwned = 1</script>`) || !strings.Contains(shown, `onerror=`) {
		t.Errorf("the result shows %q, want the markup as text", shown)
	}
	var injected struct {
		Pwned    any  `json:"pwned"`
		Elements bool `json:"elements"`
	}
	if err := b.eval(`({pwned: window.pwned ?? null, elements: !!document.querySelector('#detail-body script, #detail-body img, #detail-body b')})`, &injected); err != nil {
		t.Fatal(err)
	}
	if injected.Pwned != nil || injected.Elements {
		t.Errorf("the tool's output became markup: window.pwned = %v, elements made from it: %v", injected.Pwned, injected.Elements)
	}
	if got := b.waitFor("the audit trail", `[...document.querySelectorAll('#detail-body table.audit td')].map(td => td.textContent).join(' ')`); !strings.Contains(got, "created") || !strings.Contains(got, "completed") {
		t.Errorf("the audit trail shows %q, want the created and completed events", got)
	}
	b.do(`document.getElementById('detail').close()`)

	// More states, for the totals (and the screenshot).
	failing := rig.start(t, "https://auth.example.com#sub:carol", toolFail)
	asking := rig.start(t, "https://auth.example.com#client:ci-bot", toolAsk)
	b.waitFor("the failed task", row(failing)+`.dataset.status === 'failed'`)
	b.waitFor("the task waiting for input", row(asking)+`.dataset.status === 'input_required'`)
	b.do(row(asking) + `.querySelector('.id button').click()`)
	if got := b.waitFor("the input request in the detail", `document.querySelector('#detail-body .input')?.textContent`); !strings.Contains(got, "Deploy build 1432 to production?") || !strings.Contains(got, "waiting for an answer") {
		t.Errorf("the detail's input request shows %q", got)
	}
	b.do(`document.getElementById('detail').close()`)

	// The filters.
	b.do(`const f = document.getElementById('filters'); f.status.value = 'failed'; f.requestSubmit();`)
	b.waitFor("only the failed task", `document.querySelectorAll('#tasks tbody tr').length === 1 && `+row(failing)+` !== null`)
	b.do(`const f = document.getElementById('filters'); f.status.value = ''; f.tool.value = 'step'; f.requestSubmit();`)
	b.waitFor("only the step task", `document.querySelectorAll('#tasks tbody tr').length === 1 && `+row(stepping)+` !== null`)
	b.do(`const f = document.getElementById('filters'); f.tool.value = ''; f.principal.value = 'https://auth.example.com#sub:carol'; f.requestSubmit();`)
	b.waitFor("only carol's task", `document.querySelectorAll('#tasks tbody tr').length === 1 && `+row(failing)+` !== null`)
	b.do(`document.getElementById('filters').reset()`)
	b.waitFor("every task again", `document.querySelectorAll('#tasks tbody tr').length === 4`)

	// A task is cancelled from the page, after a confirmation, and stops.
	doomed := rig.start(t, "https://auth.example.com#sub:alice", toolStep)
	b.waitFor("the task to cancel", row(doomed)+`?.querySelector('button.cancel')`)
	b.do(row(doomed) + `.querySelector('button.cancel').click()`)
	b.waitFor("the confirmation", `document.getElementById('confirm').open && document.getElementById('confirm-id').textContent === '`+doomed+`'`)
	if status, err := rig.rt.Get(ctx, "https://auth.example.com#sub:alice", doomed); err != nil || status.Status != tasks.StatusWorking {
		t.Fatalf("before the confirmation the task is %v (%v), want working", status.Status, err)
	}
	b.do(`document.getElementById('confirm-yes').click()`)
	b.waitFor("the cancelled task", row(doomed)+`.dataset.status === 'cancelled'`)
	select {
	case id := <-rig.ended:
		if id != doomed {
			t.Errorf("the handler of %s stopped, want %s", id, doomed)
		}
	case <-ctx.Done():
		t.Fatal("the cancelled task's handler never stopped")
	}

	b.waitFor("the totals", `document.querySelector('.card[data-status="cancelled"] .n').textContent === '1' && `+
		`document.querySelector('.card[data-status="working"] .n').textContent === '1' && `+
		`document.querySelector('.card[data-status="input_required"] .n').textContent === '1'`)
	if path := os.Getenv("WEFT_CONSOLE_SCREENSHOT"); path != "" { // docs/console.png
		b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1440, "height": 520, "deviceScaleFactor": 1, "mobile": false}, nil)
		if err := os.WriteFile(path, b.screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The stepping task finishes, and the page shows it.
	close(rig.stepsOf(stepping))
	b.waitFor("the finished task", row(stepping)+`.dataset.status === 'completed' && !`+row(stepping)+`.querySelector('button.cancel')`)
	b.waitFor("the totals after it", `document.querySelector('.card[data-status="working"] .n').textContent === '0'`)
}

// TestConsoleLaysLiveChangesOverAnOlderList: the page reads the list when
// its event stream opens, and the server may answer that read before a
// change whose event then reaches the page first. The older list must not
// undo what the event showed.
func TestConsoleLaysLiveChangesOverAnOlderList(t *testing.T) {
	rig := newConsoleRig(t, nil)
	stepping := rig.start(t, "https://auth.example.com#sub:alice", toolStep)
	lists := rig.holdLists()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := startBrowser(t, ctx, 1280, 800)
	b.navigate(rig.url)

	var first heldList
	select {
	case first = <-lists:
	case <-ctx.Done():
		t.Fatal("the page never read the list")
	}
	if !strings.Contains(first.body, stepping) || strings.Contains(first.body, "3 of 4") {
		t.Fatalf("the list read as the page opened is %s, want the task before its progress report", first.body)
	}
	b.waitFor("the list read to be out", `document.getElementById('tasks').getAttribute('aria-busy') === 'true'`)
	rig.stepsOf(stepping) <- "copied 3 of 4 shards"
	b.waitFor("the progress report's event", row(stepping)+`?.querySelector('progress')?.value === 75`)

	close(first.release)
	b.waitFor("the list to be shown", `!document.getElementById('tasks').hasAttribute('aria-busy')`)
	var shown struct {
		Rows    int    `json:"rows"`
		Message string `json:"message"`
	}
	if err := b.eval(`({rows: document.querySelectorAll('#tasks tbody tr').length, message: `+row(stepping)+`?.querySelector('.message')?.textContent ?? ''})`, &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Rows != 1 || shown.Message != "copied 3 of 4 shards" {
		t.Errorf("after the older list the page shows %d rows, the task's message %q; want the task with the newer message", shown.Rows, shown.Message)
	}
	close(rig.stepsOf(stepping))
}

// adminVerifier accepts "admin-token" with the admin scope and
// "reader-token" without it.
var adminVerifier = auth.VerifierFunc(func(_ context.Context, token string) (*auth.TokenInfo, error) {
	switch token {
	case "admin-token":
		return &auth.TokenInfo{Subject: "ops", Scopes: []string{"mcp", console.DefaultAdminScope}, Expiry: time.Now().Add(time.Hour)}, nil
	case "reader-token":
		return &auth.TokenInfo{Subject: "reader", Scopes: []string{"mcp"}, Expiry: time.Now().Add(time.Hour)}, nil
	}
	return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
})

// TestConsoleInBrowserRequiresTheAdminToken: with a verifier, the page
// shows no task until an operator signs in with a token that grants the
// admin scope; the API refuses a request without one.
func TestConsoleInBrowserRequiresTheAdminToken(t *testing.T) {
	rig := newConsoleRig(t, adminVerifier)
	secret := rig.start(t, "https://auth.example.com#sub:alice", toolScript)

	for token, want := range map[string]int{"": http.StatusUnauthorized, "wrong": http.StatusUnauthorized,
		"reader-token": http.StatusForbidden, "admin-token": http.StatusOK} {
		for _, path := range []string{"api/tasks", "api/tasks/" + secret, "api/totals", "api/events"} {
			req, _ := http.NewRequest(http.MethodGet, rig.url+path, nil)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			ctx, cancel := context.WithCancel(context.Background())
			resp, err := http.DefaultClient.Do(req.WithContext(ctx))
			if err != nil {
				t.Fatal(err)
			}
			var body strings.Builder
			if resp.StatusCode != http.StatusOK {
				buf := make([]byte, 4096)
				n, _ := resp.Body.Read(buf)
				body.Write(buf[:n])
			}
			cancel()
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET %s with token %q: %d, want %d", path, token, resp.StatusCode, want)
			}
			if want != http.StatusOK && strings.Contains(body.String(), secret) {
				t.Errorf("GET %s with token %q refused, yet showed the task: %s", path, token, body.String())
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := startBrowser(t, ctx, 1280, 800)
	b.navigate(rig.url)
	b.waitFor("the sign-in form", `!document.getElementById('sign-in').hidden`)
	var shown struct {
		Main bool `json:"main"`
		Rows int  `json:"rows"`
	}
	if err := b.eval(`({main: !document.getElementById('main').hidden, rows: document.querySelectorAll('#tasks tbody tr').length})`, &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Main || shown.Rows != 0 {
		t.Fatalf("before signing in the page shows its tasks (main visible: %v, %d rows)", shown.Main, shown.Rows)
	}
	signIn := func(token string) {
		b.do(`const f = document.getElementById('sign-in-form'); f.token.value = ` + strconv.Quote(token) + `; f.requestSubmit();`)
	}
	signIn("reader-token")
	if got := b.waitFor("the refusal", `document.getElementById('sign-in-error').textContent`); !strings.Contains(got, console.DefaultAdminScope) {
		t.Errorf("signing in without the admin scope says %q, want it to name the scope", got)
	}
	signIn("admin-token")
	b.waitFor("the task, once signed in", row(secret)+`.dataset.status === 'completed'`)
	b.waitFor("the event stream to be live", `document.getElementById('live').textContent.startsWith('live')`)
	later := rig.start(t, "https://auth.example.com#sub:bob", toolScript)
	b.waitFor("a task started after signing in", row(later)+`.dataset.status === 'completed'`)
}

// TestConsoleRefusesForeignPagesAndForgedActions: a page of another origin
// cannot read the console or act through it, and an action without the
// CSRF token is refused, whoever sends it.
func TestConsoleRefusesForeignPagesAndForgedActions(t *testing.T) {
	rig := newConsoleRig(t, nil)
	id := rig.start(t, "alice", toolStep)
	send := func(method, path string, header map[string]string) int {
		req, _ := http.NewRequest(method, rig.url+path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if cors := resp.Header.Get("Access-Control-Allow-Origin"); cors != "" {
			t.Errorf("%s %s answered with CORS header %q", method, path, cors)
		}
		return resp.StatusCode
	}
	u := strings.TrimSuffix(strings.TrimPrefix(rig.url, "http://"), "/")
	for _, tc := range []struct {
		what         string
		method, path string
		header       map[string]string
		want         int
	}{
		{"a foreign page reading the list", "GET", "api/tasks", map[string]string{"Origin": "https://evil.example"}, 403},
		{"another local page reading the list", "GET", "api/tasks", map[string]string{"Origin": "http://localhost:1"}, 403},
		{"a rebinding page", "GET", "api/tasks", map[string]string{"Host": "evil.example:80"}, 403},
		{"a cancel without the CSRF token", "POST", "api/tasks/" + id + "/cancel", map[string]string{"Origin": "http://" + u}, 403},
		{"a cancel with a wrong CSRF token", "POST", "api/tasks/" + id + "/cancel", map[string]string{"X-Weft-Console-Csrf": "guess"}, 403},
		{"the console's own page reading the list", "GET", "api/tasks", map[string]string{"Origin": "http://" + u}, 200},
	} {
		h := tc.header
		if host, ok := h["Host"]; ok {
			req, _ := http.NewRequest(tc.method, rig.url+tc.path, nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s: %d, want %d", tc.what, resp.StatusCode, tc.want)
			}
			continue
		}
		if got := send(tc.method, tc.path, h); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, got, tc.want)
		}
	}
	task, err := rig.rt.Get(context.Background(), "alice", id)
	if err != nil || task.Status != tasks.StatusWorking {
		t.Errorf("after the forged cancels the task is %v (%v), want working", task.Status, err)
	}
	if errors.Is(err, tasks.ErrNotFound) {
		t.Fatal("the task is gone")
	}
}

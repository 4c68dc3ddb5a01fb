package interop_test

import (
	"bufio"
	"context"
	stdjson "encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weftmcp/weft/internal/testport"
)

// The cluster tests run three `weft serve` processes on one Redis (each
// test starts a redis-server of its own on a free port) behind HAProxy
// from Debian's packages, balancing every request round robin with no
// stickiness, and drive them through it with the TypeScript SDK's
// clients. Without haproxy or redis-server they are skipped, except under
// CI=true, where that is a failure (scripts/test.sh installs both).

// clusterWait bounds each wait for a process of a cluster test: a
// ceiling for a loaded machine, not a timing.
const clusterWait = 2 * time.Minute

// clusterSecret is the --session-secret every instance of a cluster
// shares (at least 32 characters).
const clusterSecret = "interop-cluster-secret-0123456789abcdef"

// TestClusterLegacyThroughLoadBalancer runs a legacy session of the SDK v1
// client through the balancer: initialize, tools/list, plain calls, a call
// with progress, logging/setLevel, resources/subscribe and unsubscribe, a
// task created, polled and its result read, a call whose elicitation the
// client answers through whichever instance the balancer picks (the
// answer routed to the waiting handler), and DELETE. Every instance
// must serve tools/call, and the session must be gone from every instance
// after the DELETE.
func TestClusterLegacyThroughLoadBalancer(t *testing.T) {
	c := startCluster(t)
	var seen legacyFlow
	runScript(t, "the SDK v1 client through the balancer", "cluster-legacy-client.cjs", nil, &seen, c.url, "--elicit")
	seen.check(t, true)

	// Every instance served calls of the one session: the balancer has no
	// stickiness and any instance serves any session.
	var initialized int
	for _, in := range c.instances {
		counts := in.requestCounts(t)
		t.Logf("instance %s served %v", in.name, counts)
		if counts["tools/call"] == 0 {
			t.Errorf("instance %s served no tools/call (it served %v); the balancer should have sent it some", in.name, counts)
		}
		initialized += counts["initialize"]
	}
	if initialized != 1 {
		t.Errorf("%d instances counted an initialize; want 1: the others took the session over", initialized)
	}
	c.checkDeleted(t, seen.SessionID)
}

// TestClusterLegacySurvivesAKilledInstance kills (SIGKILL) the instance
// that ran the session's initialize halfway through the legacy flow; the
// client goes on through the balancer, which sends each request the dead
// instance cannot take to another (retry-on, option redispatch) and stops
// choosing it once its health check fails.
func TestClusterLegacySurvivesAKilledInstance(t *testing.T) {
	c := startCluster(t)
	var seen legacyFlow
	var victim *weftInstance
	before := map[string]int{}
	runPausedScript(t, "the SDK v1 client through the balancer", "cluster-legacy-client.cjs", func() {
		for _, in := range c.instances {
			counts := in.requestCounts(t)
			if counts["initialize"] == 1 {
				victim = in
			}
			before[in.name] = counts["tools/call"]
		}
		if victim == nil {
			t.Fatal("no instance counted the session's initialize")
		}
		victim.kill(t)
	}, &seen, c.url, "--pause")
	seen.check(t, false)

	var survivors []*weftInstance
	for _, in := range c.instances {
		if in == victim {
			continue
		}
		survivors = append(survivors, in)
		counts := in.requestCounts(t)
		t.Logf("instance %s served %v, %d tools/call before %s was killed", in.name, counts, before[in.name], victim.name)
		if counts["tools/call"] <= before[in.name] {
			t.Errorf("instance %s served no tools/call after %s was killed; want the flow to go on through it", in.name, victim.name)
		}
	}
	(&cluster{instances: survivors}).checkDeleted(t, seen.SessionID)
}

// legacyFlow is what cluster-legacy-client.cjs observed.
type legacyFlow struct {
	SessionID       string   `json:"sessionId"`
	ProtocolVersion string   `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Echoes          []string `json:"echoes"`
	Sleep           struct {
		Text     string `json:"text"`
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		} `json:"progress"`
	} `json:"sleep"`
	SetLevel     string `json:"setLevel"`
	Subscribed   string `json:"subscribed"`
	Unsubscribed string `json:"unsubscribed"`
	Readme       string `json:"readme"`
	Task         struct {
		TaskID   string   `json:"taskId"`
		Statuses []string `json:"statuses"`
		Text     string   `json:"text"`
	} `json:"task"`
	Elicitation *struct {
		Text  string   `json:"text"`
		Asked []string `json:"asked"`
	} `json:"elicitation"`
	Deleted bool `json:"deleted"`
}

// check fails the test where a step did not give what weft's example
// server gives; elicit says whether the flow included the elicitation.
func (f *legacyFlow) check(t *testing.T, elicit bool) {
	t.Helper()
	if f.SessionID == "" || f.ProtocolVersion != "2025-11-25" {
		t.Errorf("session %q on version %q; want a session on 2025-11-25", f.SessionID, f.ProtocolVersion)
	}
	for _, tool := range []string{"echo", "sleep", "confirm"} {
		if !slices.Contains(f.Tools, tool) {
			t.Errorf("tools/list gave %v; want %s among them", f.Tools, tool)
		}
	}
	for i, text := range f.Echoes {
		if want := "call " + strconv.Itoa(i+1); text != want {
			t.Errorf("echo %d answered %q; want %q", i+1, text, want)
		}
	}
	if len(f.Echoes) != 6 {
		t.Errorf("%d echoes answered; want 6", len(f.Echoes))
	}
	if f.Sleep.Text != "slept 2 seconds" || len(f.Sleep.Progress) != 2 ||
		f.Sleep.Progress[1].Progress != 2 || f.Sleep.Progress[1].Message != "slept 2 of 2 seconds" {
		t.Errorf("the call with progress gave %+v; want 2 progress notifications ending at 2 of 2, then \"slept 2 seconds\"", f.Sleep)
	}
	if f.SetLevel != "ok" || f.Subscribed != "ok" || f.Unsubscribed != "ok" || !strings.Contains(f.Readme, "weft example server") {
		t.Errorf("setLevel %q, subscribe %q, read %q, unsubscribe %q; want each to succeed", f.SetLevel, f.Subscribed, f.Readme, f.Unsubscribed)
	}
	if f.Task.TaskID == "" || !slices.Contains(f.Task.Statuses, "completed") || f.Task.Text != "slept 1 second" {
		t.Errorf("the task gave %+v; want it polled to completed and its result \"slept 1 second\"", f.Task)
	}
	if elicit && (f.Elicitation == nil || f.Elicitation.Text != `the user answered yes to "Ship it?"`) {
		t.Errorf("the elicitation gave %+v; want the answer to reach the handler", f.Elicitation)
	}
	if !f.Deleted {
		t.Error("the client did not end its session with DELETE")
	}
}

// checkDeleted fails the test unless every instance of c answers a
// request of the session id with 404: DELETE through one ended it on all.
func (c *cluster) checkDeleted(t *testing.T, id string) {
	t.Helper()
	for _, in := range c.instances {
		if status := in.postInSession(t, id); status != http.StatusNotFound {
			t.Errorf("instance %s answered a request of the deleted session with HTTP %d; want 404", in.name, status)
		}
	}
}

// TestClusterMultiRoundTripThroughLoadBalancer runs multi-round-trip
// calls of 2026-07-28 with the SDK v2 client through the balancer: each
// call of confirm is answered input_required by one instance and retried,
// with the answer and the request state, on another, which must accept the
// state signed by the first (one key per cluster, --session-secret).
func TestClusterMultiRoundTripThroughLoadBalancer(t *testing.T) {
	c := startCluster(t)
	questions := []string{"Ship it? (1)", "Ship it? (2)", "Ship it? (3)"}
	var seen struct {
		ProtocolVersion string   `json:"protocolVersion"`
		Answers         []string `json:"answers"`
		Asked           []string `json:"asked"`
	}
	runScript(t, "the SDK v2 client through the balancer", "cluster-modern-client.cjs", nil, &seen, append([]string{c.url}, questions...)...)

	if seen.ProtocolVersion != "2026-07-28" {
		t.Errorf("the client negotiated %q; want 2026-07-28", seen.ProtocolVersion)
	}
	if !slices.Equal(seen.Asked, questions) {
		t.Errorf("the client was asked %q; want each question once, %q", seen.Asked, questions)
	}
	for i, q := range questions {
		if i >= len(seen.Answers) || seen.Answers[i] != fmt.Sprintf("the user answered yes to %q", q) {
			t.Errorf("call %d answered %q; want the answer given to %q", i+1, seen.Answers, q)
		}
	}
	// The handler runs in each round: it asks in both, and is answered in
	// the retry. Each call's rounds were served by two instances.
	for _, q := range questions {
		var asked, answered []string
		for _, in := range c.instances {
			if in.logged(fmt.Sprintf("msg=\"confirm asked\" question=%q", q)) {
				asked = append(asked, in.name)
			}
			if in.logged(fmt.Sprintf("msg=\"confirm answered\" question=%q", q)) {
				answered = append(answered, in.name)
			}
		}
		if len(asked) != 2 || len(answered) != 1 || !slices.Contains(asked, answered[0]) {
			t.Errorf("%q was asked on instances %v and answered on %v; want its two rounds on two instances, the retry answered", q, asked, answered)
		}
	}
}

// cluster is three weft instances on one Redis behind one balancer.
type cluster struct {
	url       string // the balancer's endpoint
	instances []*weftInstance
}

// startCluster starts a cluster stopped when the test ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	haproxy := requireCommand(t, "haproxy", "haproxy")
	redis := requireCommand(t, "redis-server", "redis-server")
	nodeToolchain(t) // before the servers start, so a skip starts nothing
	store := "redis://" + startRedisServer(t, redis) + "/0"
	weft := weftBinary(t)
	c := &cluster{}
	for _, name := range []string{"a", "b", "c"} {
		c.instances = append(c.instances, startWeft(t, weft, name, store))
	}
	c.url = startBalancer(t, haproxy, c.instances)
	return c
}

// requireCommand returns the path of a command the cluster tests need; it
// skips the test without it, or fails it under CI=true.
func requireCommand(t *testing.T, name, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s is not installed (Debian: apt-get install %s; scripts/test.sh installs it): %v", name, debianPackage, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (this fails under CI=true)")
	}
	return path
}

var (
	weftBuildOnce sync.Once
	weftBuildPath string
	weftBuildErr  error
)

// weftBinary builds the weft command once per test binary, into
// .cache/interop-bin of the repository, and returns its path.
func weftBinary(t *testing.T) string {
	t.Helper()
	weftBuildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(file))
		weftBuildPath = filepath.Join(root, ".cache", "interop-bin", "weft")
		cmd := exec.Command("go", "build", "-o", weftBuildPath, "./cmd/weft")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			weftBuildErr = fmt.Errorf("go build ./cmd/weft: %v\n%s", err, out)
		}
	})
	if weftBuildErr != nil {
		t.Fatal(weftBuildErr)
	}
	return weftBuildPath
}

// startRedisServer starts a redis-server of the test's own on a free
// loopback port, without persistence, and returns its address once it
// says it accepts connections.
func startRedisServer(t *testing.T, server string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	startProcess(t, "redis-server", cmd).lines.await(t, regexp.MustCompile(`Ready to accept connections`))
	return net.JoinHostPort("127.0.0.1", port)
}

// freePort returns a loopback port no other test gets (see testport), for
// a server that cannot take port 0 and say which it got (redis-server).
func freePort(t *testing.T) string {
	t.Helper()
	port, err := testport.Free()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// weftInstance is one `weft serve` of a cluster.
type weftInstance struct {
	name    string
	url     string // its own endpoint, bypassing the balancer
	metrics string // its /metrics URL
	*process
}

var (
	servingMCP     = regexp.MustCompile(`weft: serving MCP at (\S+)`)
	servingMetrics = regexp.MustCompile(`weft: serving metrics at (\S+)`)
)

// startWeft starts `weft serve` on a free port with metrics, on store and
// the cluster's session secret, and returns it once it serves.
func startWeft(t *testing.T, weft, name, store string) *weftInstance {
	t.Helper()
	cmd := exec.Command(weft, "serve", "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--store", store,
		"--instance", name, "--log-level", "info")
	cmd.Env = append(os.Environ(), "WEFT_SESSION_SECRET="+clusterSecret)
	in := &weftInstance{name: name, process: startProcess(t, "weft "+name, cmd)}
	in.metrics = in.lines.await(t, servingMetrics)[1]
	in.url = in.lines.await(t, servingMCP)[1]
	return in
}

// kill kills the instance with SIGKILL and waits for it to exit.
func (in *weftInstance) kill(t *testing.T) {
	t.Logf("killing instance %s with SIGKILL", in.name)
	in.process.kill()
}

// logged reports whether the instance wrote a line containing s.
func (in *weftInstance) logged(s string) bool {
	return slices.ContainsFunc(in.lines.all(), func(l string) bool { return strings.Contains(l, s) })
}

// metricLine is a count of the server's operation durations, by method.
var metricLine = regexp.MustCompile(`^mcp_server_operation_duration_seconds_count\{.*mcp_method_name="([^"]+)".*\} (\d+)$`)

// requestCounts scrapes the instance's metrics: how many messages of each
// method it served.
func (in *weftInstance) requestCounts(t *testing.T) map[string]int {
	t.Helper()
	resp, err := http.Get(in.metrics)
	if err != nil {
		t.Fatalf("scraping instance %s: %v", in.name, err)
	}
	defer resp.Body.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if m := metricLine.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[2])
			counts[m[1]] += n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading instance %s's metrics: %v", in.name, err)
	}
	return counts
}

// postInSession sends a ping of the legacy session id straight to the
// instance and returns the HTTP status.
func (in *weftInstance) postInSession(t *testing.T, id string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, in.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST to instance %s: %v", in.name, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// runPausedScript runs script as runScript does, with the --pause flag
// among args: when the script says it paused, it runs mid and lets the
// script go on.
func runPausedScript(t *testing.T, what, script string, mid func(), out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clusterWait)
	defer cancel()
	cmd := scriptCommand(ctx, t, script, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", what, err)
	}
	waited := false
	defer func() { // on failure
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "paused" {
		t.Fatalf("%s did not pause (it printed %q); its stderr is in the log above", what, lines.Text())
	}
	mid()
	if _, err := io.WriteString(stdin, "go on\n"); err != nil {
		t.Fatalf("telling %s to go on: %v", what, err)
	}
	rest, err := io.ReadAll(stdout)
	if err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	err = cmd.Wait()
	waited = true
	if err != nil {
		t.Fatalf("%s failed (%v); its stderr is in the log above", what, err)
	}
	if err := stdjson.Unmarshal(rest, out); err != nil {
		t.Fatalf("%s printed no observations (%v): %q", what, err, rest)
	}
}

// balancerConfig is HAProxy's configuration: HTTP mode, every request
// balanced round robin over the backends (no stickiness: no cookie, no
// prefer-last-server), timeouts long enough for SSE streams. A request a
// backend cannot take (connection refused, or closed with no answer) is
// sent again to another (retry-on, redispatch on every retry), and a
// backend whose TCP check fails is left out until it passes: what lets a
// client go on when an instance dies. The frontend listens on the socket
// the test hands it as file descriptor 3.
const balancerConfig = `global
    maxconn 256
defaults
    mode http
    timeout connect 10s
    timeout client 5m
    timeout server 5m
    timeout tunnel 5m
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response
frontend mcp
    bind fd@3
    default_backend weft
backend weft
    balance roundrobin
%s`

// startBalancer starts HAProxy in front of the instances and returns its
// endpoint. The test listens on a free port and hands the socket to
// HAProxy, so the endpoint accepts connections before HAProxy has started.
func startBalancer(t *testing.T, haproxy string, instances []*weftInstance) string {
	t.Helper()
	var servers strings.Builder
	for _, in := range instances {
		fmt.Fprintf(&servers, "    server %s %s check inter 500ms fall 1 rise 2\n", in.name, strings.TrimSuffix(strings.TrimPrefix(in.url, "http://"), "/mcp"))
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, balancerConfig, servers.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	ln.Close() // f holds the socket
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	check := exec.Command(haproxy, "-c", "-f", cfg)
	check.ExtraFiles = []*os.File{f}
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("haproxy rejects its configuration: %v\n%s", err, out)
	}
	cmd := exec.Command(haproxy, "-db", "-f", cfg)
	cmd.ExtraFiles = []*os.File{f}
	startProcess(t, "haproxy", cmd)
	url := "http://" + ln.Addr().String() + "/mcp"
	// The socket queues connections from the start; the first answer
	// (a weft instance's refusal of a bare GET) says HAProxy forwards.
	client := &http.Client{Timeout: clusterWait}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("the balancer does not answer: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 4 {
		t.Fatalf("a bare GET through the balancer got HTTP %d; want weft's 4xx refusal", resp.StatusCode)
	}
	return url
}

// processLines is what a process wrote on stdout and stderr, line by line.
type processLines struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{} // closed and replaced when a line comes or the output ends
	ended   bool
}

// all returns the lines so far.
func (p *processLines) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

// await waits for a line matching re and returns its submatches; it fails
// the test when the output ends first or after clusterWait.
func (p *processLines) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.NewTimer(clusterWait)
	defer timeout.Stop()
	for seen := 0; ; {
		p.mu.Lock()
		for ; seen < len(p.lines); seen++ {
			if m := re.FindStringSubmatch(p.lines[seen]); m != nil {
				p.mu.Unlock()
				return m
			}
		}
		ended, changed := p.ended, p.changed
		p.mu.Unlock()
		if ended {
			t.Fatalf("the process ended without writing a line matching %q", re)
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("no line matching %q within %v", re, clusterWait)
		}
	}
}

// read takes the lines of r until it ends.
func (p *processLines) read(r io.Reader, log *testLogWriter) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(log, line)
		p.mu.Lock()
		p.lines = append(p.lines, line)
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
	p.mu.Lock()
	p.ended = true
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// process is a process a cluster test started.
type process struct {
	cmd    *exec.Cmd
	lines  *processLines
	exited chan struct{} // closed once it has exited
}

// startProcess starts cmd with its output logged to the test under name
// and kept for await; when the test ends the process is interrupted, then
// killed if it has not exited within clusterWait.
func startProcess(t *testing.T, name string, cmd *exec.Cmd) *process {
	t.Helper()
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	p := &process{cmd: cmd, lines: &processLines{changed: make(chan struct{})}, exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go p.lines.read(r, logTo(t, name+": "))
	go func() {
		cmd.Wait()
		w.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-p.exited:
		case <-time.After(clusterWait):
			cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// kill kills the process with SIGKILL and waits for it to exit.
func (p *process) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

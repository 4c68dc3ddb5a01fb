//go:build unix

package transport_test

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// When the server dies in the middle of a call while a process it started
// still holds its stdout open, the call fails with the exit status instead
// of waiting for output that will never come.
func TestCommandCrashDuringACallFailsItWhileAChildHoldsStdout(t *testing.T) {
	cmd := helperCommand(t, "serve-with-child")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stream, err := transport.NewCommand(cmd, transport.WithStderr(io.Discard), transport.WithGracePeriod(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// The group holds the helper's child, which nothing else ends.
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	conn := jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Logger: slog.New(slog.DiscardHandler)})
	defer conn.Close()
	if err := conn.Call(timeoutCtx(t), "echo", nil, nil); err != nil {
		t.Fatalf("echo = %v", err)
	}
	err = conn.Call(timeoutCtx(t), "crash", nil, nil)
	if !errors.Is(err, jsonrpc.ErrClosed) || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("Call = %v; want ErrClosed with the exit status", err)
	}
}

// A server that exits cleanly at the end of its input closes without an
// error even while a process it started still holds its stderr open.
func TestCommandThatExitsCleanlyWhileAChildHoldsStderrClosesWithoutError(t *testing.T) {
	cmd := helperCommand(t, "serve-with-child-on-stderr")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Copying stderr, which the child holds open, ends this soon after
	// the helper exits; the helper has all of waitLimit to exit.
	cmd.WaitDelay = 10 * time.Millisecond
	stderr := &syncBuffer{}
	stream, err := transport.NewCommand(cmd, transport.WithStderr(stderr), transport.WithGracePeriod(waitLimit))
	if err != nil {
		t.Fatal(err)
	}
	// The group holds the helper's child, which nothing else ends.
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	conn := jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Logger: slog.New(slog.DiscardHandler)})
	if err := conn.Call(timeoutCtx(t), "echo", nil, nil); err != nil {
		t.Fatalf("echo = %v", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v; want nil for a server that exits cleanly at end of input", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("process state after Close: %v", cmd.ProcessState)
	}
}

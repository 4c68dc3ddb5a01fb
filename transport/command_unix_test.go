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

package transport_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// helperEnv selects what the re-executed test binary does instead of
// running tests: it becomes the server process of the command tests.
const helperEnv = "WEFT_TRANSPORT_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper is the server process. Modes:
//   - serve: a JSON-RPC server on stdio (echo, crash); exits 0 at end of input
//   - hang: ignores its input and never exits by itself
//   - crash: exits with status 3 at once
//   - serve-with-child: serve, after starting a hang helper that shares
//     its stdout and outlives it
//   - serve-with-child-on-stderr: the same, the hang helper sharing its
//     stderr instead
func runHelper(mode string) int {
	fmt.Fprintf(os.Stderr, "helper %s: started\n", mode)
	switch mode {
	case "serve-with-child", "serve-with-child-on-stderr":
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(os.Stderr, "helper: %v\n", err)
			return 2
		}
		child := exec.Command(exe)
		child.Env = append(os.Environ(), helperEnv+"=hang")
		if mode == "serve-with-child" {
			child.Stdout = os.Stdout
		} else {
			child.Stderr = os.Stderr
		}
		if err := child.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "helper: starting its child: %v\n", err)
			return 2
		}
		return runHelper("serve")
	case "serve":
		conn := jsonrpc.NewConn(transport.Stdio(), jsonrpc.ConnOptions{
			Logger: slog.New(slog.DiscardHandler),
			Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				switch req.Method {
				case "echo":
					return req.Params, nil
				case "crash":
					os.Exit(4)
				}
				return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no %s", req.Method)
			}),
		})
		<-conn.Done()
		return 0
	case "hang":
		time.Sleep(time.Hour) // stands for a server that never exits: only a kill ends it
		return 0
	case "crash":
		return 3
	}
	fmt.Fprintf(os.Stderr, "helper: unknown mode %q\n", mode)
	return 2
}

// syncBuffer is a bytes.Buffer safe for the copying goroutine of exec.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// helperCommand returns a command that runs this test binary as a helper.
func helperCommand(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	return cmd
}

func TestCommandRoundTripAndCleanStop(t *testing.T) {
	cmd := helperCommand(t, "serve")
	stderr := &syncBuffer{}
	stream, err := transport.NewCommand(cmd, transport.WithStderr(stderr))
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Logger: slog.New(slog.DiscardHandler)})
	for i := range 20 {
		var got map[string]int
		if err := conn.Call(timeoutCtx(t), "echo", map[string]int{"n": i}, &got); err != nil || got["n"] != i {
			t.Fatalf("echo %d = %v, %v", i, got, err)
		}
	}
	var rpcErr *jsonrpc.Error
	if err := conn.Call(timeoutCtx(t), "nope", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method = %v; want -32601 from the server", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v; want nil for a server that exits cleanly at end of input", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("process state after Close: %v", cmd.ProcessState)
	}
	if got := stderr.String(); got != "helper serve: started\n" {
		t.Errorf("stderr passed through as %q", got)
	}
}

func TestCommandCloseKillsAProcessThatDoesNotExit(t *testing.T) {
	cmd := helperCommand(t, "hang")
	stderr := &syncBuffer{}
	stream, err := transport.NewCommand(cmd, transport.WithStderr(stderr), transport.WithGracePeriod(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	readDone := make(chan error, 1)
	go func() {
		_, err := stream.Read(context.Background())
		readDone <- err
	}()
	err = stream.Close()
	if err == nil || !strings.Contains(err.Error(), "did not exit within 300ms of its stdin closing, so it was killed") {
		t.Errorf("Close = %v; want it to report the kill", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.Success() || cmd.ProcessState.Exited() {
		t.Errorf("process state after Close: %v; want killed by a signal", cmd.ProcessState)
	}
	if err := receive(t, readDone, "the blocked Read"); err == nil {
		t.Error("a Read blocked during Close returned no error")
	}
	if err := stream.Close(); err == nil {
		t.Error("a second Close forgot the first one's error")
	}
}

func TestCommandReportsAnUnexpectedExit(t *testing.T) {
	stream, err := transport.NewCommand(helperCommand(t, "crash"), transport.WithStderr(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	_, err = stream.Read(timeoutCtx(t))
	if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Read = %v; want io.EOF with the exit status", err)
	}
	if err := stream.Close(); err == nil || !strings.Contains(err.Error(), "had already exited: exit status 3") {
		t.Errorf("Close = %v; want the exit status", err)
	}
}

// When the server dies in the middle of a call, the call fails and the
// connection's error says how the process ended.
func TestCommandCrashDuringACall(t *testing.T) {
	stream, err := transport.NewCommand(helperCommand(t, "serve"), transport.WithStderr(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Logger: slog.New(slog.DiscardHandler)})
	defer conn.Close()
	err = conn.Call(timeoutCtx(t), "crash", nil, nil)
	if !errors.Is(err, jsonrpc.ErrClosed) || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("Call = %v; want ErrClosed with the exit status", err)
	}
	select {
	case <-conn.Done():
	case <-time.After(waitLimit):
		t.Fatal("the connection did not end")
	}
	if err := conn.Err(); !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("Err() = %v; want the exit status", err)
	}
}

func TestCommandNeedsFreeStdio(t *testing.T) {
	cmd := helperCommand(t, "serve")
	cmd.Stdout = io.Discard
	if _, err := transport.NewCommand(cmd); err == nil || !strings.Contains(err.Error(), "must be unset") {
		t.Errorf("NewCommand with cmd.Stdout set = %v", err)
	}
}

func TestCommandThatCannotStart(t *testing.T) {
	_, err := transport.NewCommand(exec.Command("/nonexistent/weft-server"))
	if err == nil || !strings.Contains(err.Error(), "starting command weft-server") {
		t.Errorf("NewCommand = %v; want a start error", err)
	}
}

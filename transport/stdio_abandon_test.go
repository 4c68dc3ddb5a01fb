package transport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// A Call to a peer that has stopped reading (a wedged server process, its
// pipe full) returns its context's error when the context ends, and so
// does a message queued behind it; the request's line is still written
// whole once the peer reads again, so the framing holds.
func TestAStdioCallReturnsWhenItsContextEndsWhileThePeerDoesNotRead(t *testing.T) {
	inR, inW := io.Pipe() // the peer never answers
	defer inW.Close()
	outR, outW, err := os.Pipe() // the peer does not read, for now
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	out := &startedWriter{File: outW, started: make(chan struct{}, 1)}
	c := jsonrpc.NewConn(transport.NewStdio(inR, out), jsonrpc.ConnOptions{})
	defer c.Close()

	// More than a pipe's buffer (64 KiB on Linux): it cannot be written
	// whole while the peer does not read.
	text := strings.Repeat("a", 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	called := make(chan error, 1)
	go func() {
		called <- c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": text}}, nil)
	}()
	<-out.started // the request's line is being written
	cancel()
	select {
	case err := <-called:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Call returned %v, want its context's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Call had not returned 10s after its context ended: it is stuck writing to a peer that does not read")
	}

	queued, cancelQueued := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelQueued()
	notified := make(chan error, 1)
	go func() {
		notified <- c.Notify(queued, "notifications/message", map[string]any{"level": "info", "data": "behind"})
	}()
	<-queued.Done()
	select {
	case err := <-notified:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a notification queued behind the blocked line returned %v, want its context's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a notification queued behind the blocked line had not returned 10s after its context ended")
	}

	lines := bufio.NewReaderSize(outR, 2<<20)
	line, err := lines.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the request: %v", err)
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &req); err != nil || req.Method != "tools/call" || req.Params.Arguments.Text != text {
		t.Errorf("the abandoned request reached the peer as %d bytes (method %q, %v); want it whole", len(line), req.Method, err)
	}
}

// startedWriter is a pipe's writing end that reports each Write it begins.
type startedWriter struct {
	*os.File
	started chan struct{}
}

func (w *startedWriter) Write(p []byte) (int, error) {
	select {
	case w.started <- struct{}{}:
	default: // a report is pending already
	}
	return w.File.Write(p)
}

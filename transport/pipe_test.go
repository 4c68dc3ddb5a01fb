package transport_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// waitLimit bounds every wait in these tests; reaching it is a failure.
const waitLimit = 10 * time.Second

func timeoutCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// receive waits for a value on ch.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
		panic("unreachable")
	}
}

// writeAsync writes msg on s from another goroutine (a Pipe is synchronous).
func writeAsync(t *testing.T, s jsonrpc.Stream, msg jsonrpc.Message) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.Write(timeoutCtx(t), msg) }()
	return done
}

func TestPipeCarriesMessagesThroughTheCodec(t *testing.T) {
	client, server := transport.Pipe()
	defer client.Close()
	defer server.Close()
	sent := &jsonrpc.Request{ID: jsonrpc.StringID("a"), Method: "tools/call", Params: []byte("{\n  \"x\": [1, 2]\n}")}
	done := writeAsync(t, client, sent)
	msg, err := server.Read(timeoutCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := receive(t, done, "the write"); err != nil {
		t.Fatal(err)
	}
	got, ok := msg.(*jsonrpc.Request)
	if !ok || got == sent || got.ID != sent.ID || got.Method != "tools/call" || string(got.Params) != `{"x":[1,2]}` {
		t.Fatalf("read %#v; want a decoded copy with compacted params", msg)
	}

	done = writeAsync(t, server, &jsonrpc.Response{ID: got.ID, Result: []byte(`{"ok":true}`)})
	back, err := client.Read(timeoutCtx(t))
	if err != nil || receive(t, done, "the write") != nil {
		t.Fatalf("response: %v", err)
	}
	if r := back.(*jsonrpc.Response); r.ID != sent.ID || string(r.Result) != `{"ok":true}` {
		t.Fatalf("response read as %+v", r)
	}
}

func TestPipeRefusesToWriteAnInvalidMessage(t *testing.T) {
	client, server := transport.Pipe()
	defer client.Close()
	defer server.Close()
	err := client.Write(timeoutCtx(t), &jsonrpc.Request{Method: "m", Params: []byte(`{"a":`)})
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("Write = %v; want an encoding error", err)
	}
}

func TestPipeClosingSemantics(t *testing.T) {
	client, server := transport.Pipe()
	readDone := make(chan error, 1)
	go func() {
		_, err := client.Read(timeoutCtx(t))
		readDone <- err
	}()
	writeDone := writeAsync(t, client, &jsonrpc.Request{Method: "blocked"})
	// Nobody reads on the server side: the write waits until the close.
	server.Close()
	if err := receive(t, readDone, "the blocked Read"); !errors.Is(err, io.EOF) {
		t.Errorf("blocked Read after the peer closed = %v; want io.EOF", err)
	}
	if err := receive(t, writeDone, "the blocked Write"); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("blocked Write after the peer closed = %v; want io.ErrClosedPipe", err)
	}
	if _, err := client.Read(timeoutCtx(t)); !errors.Is(err, io.EOF) {
		t.Errorf("Read after the peer closed = %v; want io.EOF", err)
	}
	if _, err := server.Read(timeoutCtx(t)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Read on the closed end = %v; want io.ErrClosedPipe", err)
	}
	if err := server.Write(timeoutCtx(t), &jsonrpc.Request{Method: "m"}); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write on the closed end = %v; want io.ErrClosedPipe", err)
	}
	if err := server.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	client.Close()
}

func TestPipeHonoursContexts(t *testing.T) {
	client, server := transport.Pipe()
	defer client.Close()
	defer server.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context = %v", err)
	}
	if err := client.Write(ctx, &jsonrpc.Request{Method: "m"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a cancelled context = %v", err)
	}
}

func TestPipeReportsAnOversizeMessage(t *testing.T) {
	client, server := transport.Pipe()
	defer client.Close()
	defer server.Close()
	huge := `{"text":"` + strings.Repeat("x", jsonrpc.DefaultMaxMessageSize) + `"}`
	done := writeAsync(t, client, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: []byte(huge)})
	_, err := server.Read(timeoutCtx(t))
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(de.Err.Message, "exceeds the limit of 4194304 bytes") {
		t.Fatalf("Read = %v; want -32600 over the limit", err)
	}
	receive(t, done, "the write")
}

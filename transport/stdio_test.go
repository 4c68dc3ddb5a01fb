package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// describe renders a message for comparisons.
func describe(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("request id=%s method=%q params=%s", m.ID, m.Method, m.Params)
	case *jsonrpc.Response:
		if m.Error != nil {
			return fmt.Sprintf("response id=%s error=%d %q", m.ID, m.Error.Code, m.Error.Message)
		}
		return fmt.Sprintf("response id=%s result=%s", m.ID, m.Result)
	}
	return fmt.Sprintf("%T", msg)
}

// readAll reads messages until the stream ends, rendering decode errors too.
func readAll(t *testing.T, s jsonrpc.Stream) []string {
	t.Helper()
	var out []string
	for {
		msg, err := s.Read(timeoutCtx(t))
		var de *jsonrpc.DecodeError
		switch {
		case errors.Is(err, io.EOF):
			return out
		case errors.As(err, &de):
			out = append(out, fmt.Sprintf("error id=%s %d %s", de.ID, de.Err.Code, de.Err.Message))
		case err != nil:
			t.Fatalf("Read: %v", err)
		default:
			out = append(out, describe(msg))
		}
	}
}

func TestStdioRoundTrip(t *testing.T) {
	aR, bW := io.Pipe()
	bR, aW := io.Pipe()
	a, b := transport.NewStdio(aR, aW), transport.NewStdio(bR, bW)
	defer a.Close()
	defer b.Close()
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize", Params: []byte(`{"protocolVersion":"2025-06-18"}`)},
		&jsonrpc.Request{Method: "notifications/initialized"},
		&jsonrpc.Response{ID: jsonrpc.StringID("x"), Error: jsonrpc.NewError(-32601, "no")},
	}
	for _, msg := range msgs {
		done := make(chan error, 1)
		go func() { done <- a.Write(timeoutCtx(t), msg) }()
		got, err := b.Read(timeoutCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if describe(got) != describe(msg) {
			t.Errorf("read %s; want %s", describe(got), describe(msg))
		}
		if err := receive(t, done, "the write"); err != nil {
			t.Fatal(err)
		}
	}
}

// recordingWriter records each Write call separately.
type recordingWriter struct {
	mu    sync.Mutex
	calls []string
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

// The stdio transport: "Messages are delimited by newlines, and MUST NOT
// contain embedded newlines." Each message reaches the writer whole, in one
// call, as one line.
func TestStdioMessagesAreOneLineEach(t *testing.T) {
	w := &recordingWriter{}
	s := transport.NewStdio(strings.NewReader(""), w)
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: []byte("{\n\"a\": \"b\\nc\"\n}")},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte("[\r\n1,\n2]")},
	}
	for _, msg := range msgs {
		if err := s.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"b\nc"}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":[1,2]}` + "\n",
	}
	if fmt.Sprint(w.calls) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", w.calls, want)
	}
}

func TestStdioFlushesABufferedWriter(t *testing.T) {
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	s := transport.NewStdio(strings.NewReader(""), bw)
	if err := s.Write(context.Background(), &jsonrpc.Request{Method: "m"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"jsonrpc":"2.0","method":"m"}`+"\n" {
		t.Errorf("after Write the underlying writer holds %q", out.String())
	}
}

func TestStdioReadsLines(t *testing.T) {
	input := "\n   \n" +
		`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\r\n" +
		"\t\r\n" +
		`not json` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"b"}` // last line without a newline
	got := readAll(t, transport.NewStdio(strings.NewReader(input), io.Discard))
	want := []string{
		`request id=1 method="a" params=`,
		`error id=null -32700 invalid JSON at byte 1: invalid character 'o' in literal null (expecting 'u')`,
		`request id=2 method="b" params=`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStdioSkipsAnOversizeLine(t *testing.T) {
	small := `{"jsonrpc":"2.0","id":1,"method":"m"}` // 37 bytes
	atLimit := `{"jsonrpc":"2.0","id":2,"method":"` + strings.Repeat("x", 64-36) + `"}`
	if len(atLimit) != 64 {
		t.Fatalf("test setup: line of %d bytes", len(atLimit))
	}
	longer := atLimit + " "
	huge := `{"jsonrpc":"2.0","id":3,"method":"` + strings.Repeat("y", 100_000) + `"}` // beyond the read buffer too
	input := strings.Join([]string{small, huge, atLimit, longer + "\r", small}, "\n") + "\n"
	got := readAll(t, transport.NewStdio(strings.NewReader(input), io.Discard, transport.WithMaxMessageSize(64)))
	want := []string{
		`request id=1 method="m" params=`,
		fmt.Sprintf(`error id=null -32600 message of %d bytes exceeds the limit of 64 bytes`, len(huge)),
		fmt.Sprintf(`request id=2 method=%q params=`, strings.Repeat("x", 28)),
		`error id=null -32600 message of 65 bytes exceeds the limit of 64 bytes`,
		`request id=1 method="m" params=`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStdioDefaultLimit(t *testing.T) {
	huge := `{"jsonrpc":"2.0","method":"m","params":["` + strings.Repeat("z", jsonrpc.DefaultMaxMessageSize) + `"]}`
	got := readAll(t, transport.NewStdio(strings.NewReader(huge+"\n"), io.Discard))
	if len(got) != 1 || !strings.Contains(got[0], "exceeds the limit of 4194304 bytes") {
		t.Errorf("read %.200q; want one oversize error", got)
	}
}

func TestStdioCloseClosesBothSides(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := transport.NewStdio(inR, outW)
	readDone := make(chan error, 1)
	go func() {
		_, err := s.Read(context.Background())
		readDone <- err
	}()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := receive(t, readDone, "the blocked Read"); err == nil {
		t.Error("blocked Read returned no error after Close")
	}
	if _, err := outR.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the writer was not closed: reading its other end = %v", err)
	}
	if _, err := inW.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("the reader was not closed: writing its other end = %v", err)
	}
	if err := s.Write(context.Background(), &jsonrpc.Request{Method: "m"}); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write after Close = %v; want io.ErrClosedPipe", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// An oversize request is answered with an error while other requests in
// flight carry on.
func TestStdioOversizeMessageIsAnsweredAndOthersLiveOn(t *testing.T) {
	toConnR, toConnW := io.Pipe()
	fromConnR, fromConnW := io.Pipe()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	conn := jsonrpc.NewConn(transport.NewStdio(toConnR, fromConnW, transport.WithMaxMessageSize(256)), jsonrpc.ConnOptions{
		Logger: slog.New(slog.DiscardHandler),
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- struct{}{}
			<-release
			return "done", nil
		}),
	})
	defer func() {
		conn.Close()
		<-conn.Done()
	}()
	lines := bufio.NewReader(fromConnR)
	readMsg := func() string {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading the connection's output: %v", err)
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("the connection wrote %q: %v", line, err)
		}
		return describe(msg)
	}
	io.WriteString(toConnW, `{"jsonrpc":"2.0","id":1,"method":"slow"}`+"\n")
	receive(t, started, "the slow handler")
	big := `{"jsonrpc":"2.0","id":2,"method":"big","params":["` + strings.Repeat("b", 1000) + `"]}`
	io.WriteString(toConnW, big+"\n")
	want := fmt.Sprintf(`response id=null error=-32600 "message of %d bytes exceeds the limit of 256 bytes"`, len(big))
	if got := readMsg(); got != want {
		t.Fatalf("got %s; want %s", got, want)
	}
	close(release)
	if got := readMsg(); got != `response id=1 result="done"` {
		t.Fatalf("got %s; want the slow request answered", got)
	}
}

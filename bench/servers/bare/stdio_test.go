package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// stdioLoop is serveStdio or serveStdioSerially.
type stdioLoop func(ctx context.Context, in io.ReadCloser, out io.Writer) error

// exchange feeds lines to serve and returns its answers keyed by id.
func exchange(t *testing.T, serve stdioLoop, lines ...string) map[string]string {
	t.Helper()
	in := io.NopCloser(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	var out strings.Builder
	if err := serve(t.Context(), in, &out); err != nil {
		t.Fatal(err)
	}
	answers := map[string]string{}
	scan := bufio.NewScanner(strings.NewReader(out.String()))
	for scan.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(scan.Bytes(), &m); err != nil {
			t.Fatalf("answer %q is not JSON: %v", scan.Text(), err)
		}
		answers[string(m.ID)] = scan.Text()
	}
	return answers
}

func TestStdioAnswersEveryRequestAndNoNotification(t *testing.T) {
	for name, serve := range map[string]stdioLoop{"concurrent": serveStdio, "serial": serveStdioSerially} {
		t.Run(name, func(t *testing.T) { testStdioAnswers(t, serve) })
	}
}

func testStdioAnswers(t *testing.T, serve stdioLoop) {
	got := exchange(t, serve,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi \"there\""}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"shout","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":"five","method":"resources/list"}`,
		`not json`,
		`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
	)
	want := map[string]string{
		"1":      `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bare","version":"1.0.0"}}}`,
		"2":      `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi \"there\""}]}}`,
		"3":      `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"echo needs arguments.text, a string"}],"isError":true}}`,
		"4":      `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool shout; this server has only echo"}}`,
		`"five"`: `{"jsonrpc":"2.0","id":"five","error":{"code":-32601,"message":"this server has no method resources/list"}}`,
		"6":      `{"jsonrpc":"2.0","id":6,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bare","version":"1.0.0"}}}`,
	}
	for id, answer := range want {
		if got[id] != answer {
			t.Errorf("answer to id %s:\n got %s\nwant %s", id, got[id], answer)
		}
	}
	if null := got["null"]; !strings.Contains(null, `"code":-32700`) {
		t.Errorf("a line that is not JSON got %q, want a -32700 parse error with id null", null)
	}
	if len(got) != len(want)+1 {
		t.Errorf("got %d answers, want %d (none for the notification): %v", len(got), len(want)+1, got)
	}
}

package main

import (
	"bufio"
	"io"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdLegacy sends one HTTP request of a legacy Streamable HTTP session
// (2025-11-25), as a client that may send each request to another server:
//
//	legacy POST URL BODY
//	legacy DELETE URL
//
// It sends $SID as the Mcp-Session-Id when set, and sets SID from the
// response's. With $PROTOCOL set it sends a request of that (modern)
// version instead, with the Mcp-Method and Mcp-Name headers the body
// calls for, and no session. It prints "HTTP <status>" to stderr and the
// response's JSON-RPC messages, JSON or SSE, one a line, to stdout.
func cmdLegacy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || (args[0] == "POST") != (len(args) == 3) {
		ts.Fatalf("usage: legacy POST URL BODY | legacy DELETE URL")
	}
	var body io.Reader
	if len(args) == 3 {
		body = strings.NewReader(args[2])
	}
	req, err := http.NewRequest(args[0], args[1], body)
	ts.Check(err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if v := ts.Getenv("PROTOCOL"); v != "" {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		ts.Check(json.Unmarshal([]byte(args[2]), &msg))
		req.Header.Set("MCP-Protocol-Version", v)
		req.Header.Set("Mcp-Method", msg.Method)
		if msg.Params.Name != "" {
			req.Header.Set("Mcp-Name", msg.Params.Name)
		}
	} else {
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if sid := ts.Getenv("SID"); sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		ts.Setenv("SID", sid)
	}
	var out strings.Builder
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
				out.WriteString(strings.TrimSpace(data) + "\n")
			}
		}
	} else {
		b, err := io.ReadAll(resp.Body)
		ts.Check(err)
		if len(b) > 0 {
			out.Write(b)
			out.WriteString("\n")
		}
	}
	ts.Stdout().Write([]byte(out.String()))
	ts.Stderr().Write([]byte("HTTP " + resp.Status + "\n"))
}

package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// streamMain is the script program "stream FILE METHOD URL SID [ARG]": it
// sends one HTTP request of the legacy session SID (2025-11-25) and
// appends to FILE ("-" for stdout) "open <status>" once the response
// begins, then each JSON-RPC message of the response, as "<event ID>
// <message>" for SSE events, one a line, as they come: run in the
// background (&NAME&), it follows a GET stream or a long POST for
// waitmatch. ARG is the body of a POST, or the Last-Event-ID of a GET.
func streamMain() {
	if len(os.Args) < 5 || len(os.Args) > 6 {
		fmt.Fprintln(os.Stderr, "usage: stream FILE METHOD URL SID [BODY|LAST-EVENT-ID]")
		os.Exit(2)
	}
	path, method, url, sid := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	var arg string
	if len(os.Args) == 6 {
		arg = os.Args[5]
	}
	out := io.Writer(os.Stdout)
	if path != "-" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, "stream:", err)
			os.Exit(1)
		}
		defer f.Close()
		out = f
	}
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(arg)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(2)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", sid)
	if method == http.MethodGet && arg != "" {
		req.Header.Set("Last-Event-ID", arg)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	fmt.Fprintf(out, "open %d\n", resp.StatusCode)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		if s := strings.TrimSpace(string(b)); s != "" {
			fmt.Fprintln(out, "- "+s)
		}
		return
	}
	sc := bufio.NewScanner(resp.Body)
	var id, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		case line == "":
			if data != "" {
				fmt.Fprintln(out, id+" "+data)
			}
			id, data = "", ""
		}
	}
}

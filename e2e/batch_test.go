package e2e

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// batchCase is a JSON-RPC batch a 2025-03-26 session receives and what it
// must be answered with (see answerOf); "" means no answer at all.
type batchCase struct {
	name, body, answer string
	status             int // over Streamable HTTP
}

// batchCases follow JSON-RPC 2.0 §6: every element of a batch is answered on
// its own, an invalid one with -32600 and a null id; valid requests are
// served even beside invalid ones; notifications get nothing. Only an empty
// array and text that is not JSON get a single error.
var batchCases = []batchCase{
	{"invalid elements only", `[1,2,3]`,
		`batch[error null -32600; error null -32600; error null -32600]`, http.StatusOK},
	{"a valid ping among invalid elements",
		`[{"jsonrpc":"2.0","id":"p","method":"ping"},1,{"foo":"boo"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone"}}]`,
		`batch[error null -32600; error null -32600; result "p" {}]`, http.StatusOK},
	{"a tool call, an unknown method and an invalid id",
		`[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}},` +
			`{"jsonrpc":"2.0","id":"b","method":"nope/nothing"},{"jsonrpc":"2.0","id":true,"method":"ping"}]`,
		`batch[error "b" -32601; error null -32600; result "a" {"content":[{"type":"text","text":"{\"sum\":3}"}]}]`, http.StatusOK},
	{"an empty array", `[]`, `error null -32600`, http.StatusBadRequest},
	{"text that is not JSON", `[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method"]`, `error null -32700`, http.StatusBadRequest},
	{"notifications only",
		`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"y"}}]`,
		``, http.StatusAccepted},
}

// answerOf renders a message for comparison: a response as "result <id>
// <result>" or "error <id> <code>", a batch as its sorted responses.
func answerOf(t *testing.T, msg jsonrpc.Message) string {
	t.Helper()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if m.Error != nil {
			if m.Error.Message == "" {
				t.Errorf("error %d for id %s has no message", m.Error.Code, m.ID)
			}
			return fmt.Sprintf("error %s %d", m.ID, m.Error.Code)
		}
		return fmt.Sprintf("result %s %s", m.ID, m.Result)
	case jsonrpc.Batch:
		parts := make([]string, len(m))
		for i, el := range m {
			parts[i] = answerOf(t, el)
		}
		slices.Sort(parts)
		return "batch[" + strings.Join(parts, "; ") + "]"
	}
	t.Fatalf("the server answered with %T, not a response or a batch of them", msg)
	return ""
}

func TestBatchElementsAreAnsweredOneByOne(t *testing.T) {
	forEachRaw(t, []string{mcp.Version20250326}, func(t *testing.T, p *rawPeer, v string) {
		for _, tc := range batchCases {
			p.send(tc.body)
			if tc.answer == "" {
				continue // p.alive below fails on anything the server sent
			}
			if got := answerOf(t, p.recv()); got != tc.answer {
				t.Errorf("%s: %s\n got %s\nwant %s", tc.name, tc.body, got, tc.answer)
			}
		}
		p.alive(v)
	})
}

func TestBatchElementsAreAnsweredOneByOneOverHTTP(t *testing.T) {
	url := serveHTTP(t)
	post := func(sid, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctxFor(t), "POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", mcp.Version20250326)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	init := post("", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, mcp.Version20250326))
	sid := init.Header.Get("Mcp-Session-Id")
	if init.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: status %d, session %q", init.StatusCode, sid)
	}
	if resp := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", resp.StatusCode)
	}
	for _, tc := range batchCases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(sid, tc.body)
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("%s: status %d (%s); want %d", tc.body, resp.StatusCode, body, tc.status)
			}
			if tc.answer == "" {
				if len(body) != 0 {
					t.Fatalf("%s: answered %s; want no body", tc.body, body)
				}
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("%s: Content-Type %q; want application/json", tc.body, ct)
			}
			msg, err := jsonrpc.DecodeMessage(body)
			if err != nil {
				t.Fatalf("%s: the answer %s is not JSON-RPC: %v", tc.body, body, err)
			}
			if got := answerOf(t, msg); got != tc.answer {
				t.Errorf("%s:\n got %s\nwant %s", tc.body, got, tc.answer)
			}
		})
	}
}

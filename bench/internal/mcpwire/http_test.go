package mcpwire_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// incoming is a message the fake servers receive.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Arguments struct {
			Text string `json:"text"`
		} `json:"arguments"`
		Task   *struct{} `json:"task"`   // a task-augmented tools/call
		TaskID string    `json:"taskId"` // tasks/get, tasks/result
	} `json:"params"`
}

// initializeAnswer is a correct initialize result.
func initializeAnswer(id json.RawMessage, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, id, version)
}

// echoAnswer is an echo result carrying text.
func echoAnswer(id json.RawMessage, text string) string {
	quoted, _ := json.Marshal(text)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, id, quoted)
}

// fakeHTTP is a Streamable HTTP server that checks the client's headers and
// answers tools/call through answer.
type fakeHTTP struct {
	t       *testing.T
	version string                                  // protocol version initialize answers
	notify  int                                     // status for notifications
	answer  func(w http.ResponseWriter, m incoming) // answers tools/call
}

func (f *fakeHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m incoming
	if err := json.Unmarshal(body, &m); err != nil {
		f.t.Errorf("client sent malformed JSON %q: %v", body, err)
		return
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		f.t.Errorf("%s: Content-Type %q, want application/json", m.Method, got)
	}
	if got := r.Header.Get("Accept"); !strings.Contains(got, "application/json") || !strings.Contains(got, "text/event-stream") {
		f.t.Errorf("%s: Accept %q must list application/json and text/event-stream", m.Method, got)
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", "session-1")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, initializeAnswer(m.ID, f.version))
		return
	}
	if got := r.Header.Get("Mcp-Session-Id"); got != "session-1" {
		f.t.Errorf("%s: Mcp-Session-Id %q, want the issued session-1", m.Method, got)
	}
	if got := r.Header.Get("Mcp-Protocol-Version"); got != mcpwire.ProtocolVersion {
		f.t.Errorf("%s: MCP-Protocol-Version %q, want %s", m.Method, got, mcpwire.ProtocolVersion)
	}
	if len(m.ID) == 0 {
		w.WriteHeader(f.notify)
		return
	}
	f.answer(w, m)
}

// newFake returns a well-behaved fake whose tools/call is answered by answer.
func newFake(t *testing.T, answer func(w http.ResponseWriter, m incoming)) *fakeHTTP {
	return &fakeHTTP{t: t, version: mcpwire.ProtocolVersion, notify: http.StatusAccepted, answer: answer}
}

// dial starts f and opens a session with it.
func dial(t *testing.T, f *fakeHTTP) (*mcpwire.HTTPSession, error) {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return mcpwire.DialHTTP(t.Context(), srv.Client(), srv.URL+"/mcp")
}

func TestHTTPEchoAnsweredWithJSON(t *testing.T) {
	s, err := dial(t, newFake(t, func(w http.ResponseWriter, m incoming) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, echoAnswer(m.ID, m.Params.Arguments.Text))
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "session-1" {
		t.Errorf("session id %q, want session-1", s.ID())
	}
	if err := s.Echo(t.Context(), "hello"); err != nil {
		t.Fatalf("correct JSON echo rejected: %v", err)
	}
}

func TestHTTPEchoAnsweredWithSSE(t *testing.T) {
	s, err := dial(t, newFake(t, func(w http.ResponseWriter, m incoming) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": a comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
		fmt.Fprintf(w, "id: 7\nevent: message\ndata: %s\n\n", echoAnswer(m.ID, m.Params.Arguments.Text))
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Echo(t.Context(), "hello"); err != nil {
		t.Fatalf("correct SSE echo after a notification rejected: %v", err)
	}
}

func TestHTTPEchoRejectsWrongAnswers(t *testing.T) {
	for name, answer := range map[string]func(w http.ResponseWriter, m incoming){
		"other text": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, echoAnswer(m.ID, m.Params.Arguments.Text+"!"))
		},
		"other id": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, echoAnswer(json.RawMessage("999"), m.Params.Arguments.Text))
		},
		"tool error": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}],"isError":true}}`, m.ID, m.Params.Arguments.Text)
		},
		"JSON-RPC error": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"no"}}`, m.ID)
		},
		"SSE without the answer": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
		},
		"SSE server request": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\n\n")
		},
		"HTTP 500": func(w http.ResponseWriter, m incoming) {
			http.Error(w, "broken", http.StatusInternalServerError)
		},
		"text/plain": func(w http.ResponseWriter, m incoming) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, echoAnswer(m.ID, m.Params.Arguments.Text))
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := dial(t, newFake(t, answer))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Echo(t.Context(), "hello"); err == nil {
				t.Fatal("Echo accepted a wrong answer")
			} else {
				t.Log(err)
			}
		})
	}
}

func TestDialHTTPRejectsABadHandshake(t *testing.T) {
	wrongVersion := newFake(t, nil)
	wrongVersion.version = "2025-06-18"
	if _, err := dial(t, wrongVersion); err == nil || !strings.Contains(err.Error(), "2025-06-18") {
		t.Errorf("a server negotiating another version was accepted or not named: %v", err)
	}
	notAccepted := newFake(t, nil)
	notAccepted.notify = http.StatusOK
	if _, err := dial(t, notAccepted); err == nil || !strings.Contains(err.Error(), "202") {
		t.Errorf("a server answering notifications/initialized with 200 was accepted or not explained: %v", err)
	}
}

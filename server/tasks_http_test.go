package server

import (
	"bufio"
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// The task surfaces over Streamable HTTP, spoken as raw HTTP: what only
// this transport can show (which stream a message travels on, the routing
// headers).

// mount serves s over Streamable HTTP at /mcp of a test server.
func mount(t *testing.T, s *Server) string {
	t.Helper()
	h := streamable.NewHandler(s, &streamable.HandlerOptions{Logger: quietLogger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		h.Shutdown(ctx)
		hs.Close()
	})
	return hs.URL + "/mcp"
}

// post sends one JSON-RPC message with the headers and returns the response.
func post(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// messages yields the JSON-RPC messages of a response, JSON or SSE, in order.
func messages(t *testing.T, resp *http.Response) <-chan stdjson.RawMessage {
	t.Helper()
	out := make(chan stdjson.RawMessage, 16)
	go func() {
		defer close(out)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(resp.Body)
			if len(bytes.TrimSpace(b)) > 0 {
				out <- b
			}
			return
		}
		sc := bufio.NewScanner(resp.Body)
		var data []byte
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
			case line == "":
				if len(data) > 0 {
					out <- stdjson.RawMessage(data)
				}
				data = nil
			}
		}
	}()
	return out
}

// nextMessage waits for the next message of a response.
func nextMessage(t *testing.T, ch <-chan stdjson.RawMessage) stdjson.RawMessage {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("the response ended")
		}
		return m
	case <-time.After(waitFor):
		t.Fatal("no message on the response stream")
		return nil
	}
}

// startAskTask opens a 2025-11-25 session over url, has tool ask run as a
// task and waits until it asks its question; it returns the session's
// headers and the task ID.
func startAskTask(t *testing.T, rt *tasks.Runtime, url string) (hdr map[string]string, id string) {
	t.Helper()
	init := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	sid := init.Header.Get("Mcp-Session-Id")
	nextMessage(t, messages(t, init))
	hdr = map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": mcp.Version20251125}
	if r := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", r.Status)
	}
	created := nextMessage(t, messages(t, post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},"task":{}}}`, hdr)))
	id = strings.Trim(member(t, created, "result", "task", "taskId"), `"`)
	if id == "" {
		t.Fatalf("tools/call answered %s", created)
	}
	awaitStatus(t, rt, sid, id, tasks.StatusInputRequired)
	return hdr, id
}

// answerQuestion checks that question is the ask tool's elicitation tagged
// with task id and answers it with a name.
func answerQuestion(t *testing.T, url string, hdr map[string]string, question stdjson.RawMessage, id string) {
	t.Helper()
	if member(t, question, "method") != `"elicitation/create"` || member(t, question, "params", "_meta", mcp.MetaRelatedTask, "taskId") != `"`+id+`"` {
		t.Fatalf("the stream carried %s, want the task's elicitation tagged with it", question)
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada"}}}`, member(t, question, "id"))
	if r := post(t, url, answer, hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("posting the answer: %s", r.Status)
	}
}

func TestTasksHTTP_QuestionsTravelOnTheTasksResultStream(t *testing.T) {
	rt := newRuntime(t)
	url := mount(t, taskServer(t, rt, newGate(), nil))
	hdr, id := startAskTask(t, rt, url)

	stream := messages(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, id), hdr))
	answerQuestion(t, url, hdr, nextMessage(t, stream), id)
	final := nextMessage(t, stream)
	if member(t, final, "id") != "3" || text1(t, []byte(member(t, final, "result"))) != "Hello, Ada!" ||
		member(t, final, "result", "_meta", mcp.MetaRelatedTask, "taskId") != `"`+id+`"` {
		t.Errorf("tasks/result ended with %s", final)
	}
}

// A client that polls a task in input_required gets its question on the
// session's GET stream when one is open; without one, the question waits
// for the client's tasks/result, whichever of the two comes first.
func TestTasksHTTP_APolledQuestionGoesOnTheGetStreamOrTasksResult(t *testing.T) {
	poll := func(t *testing.T, url string, hdr map[string]string, id string) {
		t.Helper()
		got := nextMessage(t, messages(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":%q}}`, id), hdr)))
		if s := member(t, got, "result", "status"); s != `"input_required"` {
			t.Fatalf("tasks/get answered %s, want input_required", got)
		}
	}
	awaitResult := func(t *testing.T, stream <-chan stdjson.RawMessage) {
		t.Helper()
		if final := nextMessage(t, stream); text1(t, []byte(member(t, final, "result"))) != "Hello, Ada!" {
			t.Errorf("tasks/result ended with %s", final)
		}
	}
	t.Run("GET stream", func(t *testing.T) {
		rt := newRuntime(t)
		url := mount(t, taskServer(t, rt, newGate(), nil))
		hdr, id := startAskTask(t, rt, url)
		get, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		get.Header.Set("Accept", "text/event-stream")
		for k, v := range hdr {
			get.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(get)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %v %v", resp, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		stream := messages(t, resp)
		poll(t, url, hdr, id)
		question := nextMessage(t, stream)
		for member(t, question, "method") == `"notifications/tasks/status"` {
			question = nextMessage(t, stream)
		}
		answerQuestion(t, url, hdr, question, id)
		awaitStatus(t, rt, hdr["Mcp-Session-Id"], id, tasks.StatusCompleted)
	})
	t.Run("no GET stream, poll first", func(t *testing.T) {
		rt := newRuntime(t)
		url := mount(t, taskServer(t, rt, newGate(), nil))
		hdr, id := startAskTask(t, rt, url)
		poll(t, url, hdr, id)
		stream := messages(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, id), hdr))
		answerQuestion(t, url, hdr, nextMessage(t, stream), id)
		awaitResult(t, stream)
	})
	t.Run("no GET stream, tasks/result first", func(t *testing.T) {
		rt := newRuntime(t)
		url := mount(t, taskServer(t, rt, newGate(), nil))
		hdr, id := startAskTask(t, rt, url)
		stream := messages(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, id), hdr))
		question := nextMessage(t, stream)
		poll(t, url, hdr, id) // the question is out already: not sent again
		answerQuestion(t, url, hdr, question, id)
		awaitResult(t, stream)
	})
}

func TestTasksHTTP_ExtensionRequestsCarryMcpName(t *testing.T) {
	g := newGate()
	s := taskServer(t, newRuntime(t), g, nil)
	url := mount(t, s)
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:%s}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities, extCaps)
	hdr := func(method, name string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}
	created := nextMessage(t, messages(t, post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"hold","arguments":{}}}`, hdr("tools/call", "hold"))))
	id := strings.Trim(member(t, created, "result", "taskId"), `"`)
	if id == "" || member(t, created, "result", "resultType") != `"task"` {
		t.Fatalf("tools/call answered %s", created)
	}
	get := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{%s,"taskId":%q}}`, meta, id)
	resp := post(t, url, get, hdr("tasks/get", id))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("tasks/get: %s %s; want 200 and a plain JSON answer (no SSE upgrade)", resp.Status, resp.Header.Get("Content-Type"))
	}
	if got := nextMessage(t, messages(t, resp)); member(t, got, "result", "status") != `"working"` {
		t.Errorf("tasks/get answered %s", got)
	}
	wrong := post(t, url, get, hdr("tasks/get", "someone-elses-task"))
	if body := nextMessage(t, messages(t, wrong)); wrong.StatusCode != http.StatusBadRequest || member(t, body, "error", "code") != "-32020" {
		t.Errorf("tasks/get with a mismatched Mcp-Name: %s %s, want 400 and -32020", wrong.Status, body)
	}
	// tasks/result is not in the modern era; it carries no Mcp-Name (only
	// tasks/get, tasks/update and tasks/cancel do), and the server answers.
	removed := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{%s,"taskId":%q}}`, meta, id), hdr("tasks/result", ""))
	if body := nextMessage(t, messages(t, removed)); member(t, body, "error", "code") != "-32601" {
		t.Errorf("modern tasks/result: %s %s, want -32601", removed.Status, body)
	}
	g.release()
}

func TestTasksHTTP_InvalidArgumentsAreAToolErrorNotA400(t *testing.T) {
	// Over Streamable HTTP a modern -32602 is a 400; invalid arguments are
	// a tool error (SEP-1303), so they come back as 200 with isError, on
	// a call that would otherwise become a task.
	s := taskServer(t, newRuntime(t), newGate(), nil)
	addCountTool(s, required)
	url := mount(t, s)
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:%s}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities, extCaps)
	hdr := map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "count"}
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"count","arguments":{"n":0.5}}}`, hdr)
	msg := nextMessage(t, messages(t, resp))
	if resp.StatusCode != http.StatusOK || member(t, msg, "result", "isError") != "true" || hasMember(t, []byte(member(t, msg, "result")), "taskId") ||
		!strings.Contains(member(t, msg, "result", "content"), `invalid arguments for tool \"count\"`) {
		t.Errorf("tools/call with n 0.5: %s %s, want 200 and an immediate tool error", resp.Status, msg)
	}
	resp = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`,"name":"count","arguments":[]}}`, hdr)
	if msg := nextMessage(t, messages(t, resp)); resp.StatusCode != http.StatusBadRequest || member(t, msg, "error", "code") != "-32602" {
		t.Errorf("tools/call with an array for arguments: %s %s, want 400 and -32602", resp.Status, msg)
	}
}

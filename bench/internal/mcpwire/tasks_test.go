package mcpwire_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// fakeTasks answers the task life of echo calls: tools/call with a task
// creates a task that is working for the first polls, then completed;
// tasks/result returns the echo. Each step can be spoilt for a test.
type fakeTasks struct {
	t             *testing.T
	workingPolls  int    // polls answered "working" before "completed"
	createdStatus string // status of the created task
	pollStatus    string // status after the working polls
	relatedTask   string // related-task of tasks/result; "" means the task's
	resultSuffix  string // appended to the echo's text by tasks/result
	noTaskParam   bool   // tools/call arrived without the task param

	mu    sync.Mutex
	texts map[string]string // text of each task
	polls map[string]int
}

func newFakeTasks(t *testing.T) *fakeTasks {
	return &fakeTasks{t: t, workingPolls: 2, createdStatus: "working", pollStatus: "completed",
		texts: map[string]string{}, polls: map[string]int{}}
}

func (f *fakeTasks) answer(w http.ResponseWriter, m incoming) {
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch m.Method {
	case "tools/call":
		if m.Params.Task == nil {
			f.noTaskParam = true
		}
		id := fmt.Sprintf("task-%d", len(f.texts)+1)
		f.texts[id] = m.Params.Arguments.Text
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"task":{"taskId":%q,"status":%q,"createdAt":"x","lastUpdatedAt":"x","ttl":null}}}`,
			m.ID, id, f.createdStatus)
	case "tasks/get":
		f.polls[m.Params.TaskID]++
		status := "working"
		if f.polls[m.Params.TaskID] > f.workingPolls {
			status = f.pollStatus
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"taskId":%q,"status":%q,"createdAt":"x","lastUpdatedAt":"x","ttl":null}}`,
			m.ID, m.Params.TaskID, status)
	case "tasks/result":
		related := f.relatedTask
		if related == "" {
			related = m.Params.TaskID
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":%q}}}}`,
			m.ID, f.texts[m.Params.TaskID]+f.resultSuffix, related)
	default:
		io.WriteString(w, `{}`)
	}
}

func TestTaskSessionTakesEchoThroughATasksLife(t *testing.T) {
	f := newFakeTasks(t)
	s, err := dial(t, newFake(t, f.answer))
	if err != nil {
		t.Fatal(err)
	}
	tasks := mcpwire.NewTaskSession(s, mcpwire.LegacyTasks)
	for _, text := range []string{"one", "two"} {
		if err := tasks.Echo(t.Context(), text); err != nil {
			t.Fatalf("a correct task life was rejected: %v", err)
		}
	}
	if f.noTaskParam {
		t.Error("tools/call was sent without the task param")
	}
	if got, want := tasks.PollsPerTask(), float64(f.workingPolls+1); got != want {
		t.Errorf("PollsPerTask = %v; want %v (working polls, then the completed one)", got, want)
	}
	if got, want := tasks.RequestsPerTask(), float64(f.workingPolls+3); got != want {
		t.Errorf("RequestsPerTask = %v; want %v (create, polls, result)", got, want)
	}
}

// fakeExtension answers the io.modelcontextprotocol/tasks extension: every
// request must be modern, carry the routing headers and declare the
// extension; tools/call creates a task, tasks/get reports it working for
// the first polls, then completed with the echo inlined (plus suffix).
type fakeExtension struct {
	t            *testing.T
	workingPolls int
	suffix       string

	mu    sync.Mutex
	texts map[string]string
	polls map[string]int
}

func (f *fakeExtension) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		incoming
		Params struct {
			Name      string `json:"name"`
			TaskID    string `json:"taskId"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
				Caps    struct {
					Extensions map[string]json.RawMessage `json:"extensions"`
				} `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		f.t.Errorf("malformed request: %v", err)
		return
	}
	name := m.Params.Name + m.Params.TaskID
	for header, want := range map[string]string{
		"MCP-Protocol-Version": mcpwire.ModernVersion, "Mcp-Method": m.Method, "Mcp-Name": name, "Mcp-Session-Id": "",
	} {
		if got := r.Header.Get(header); got != want {
			f.t.Errorf("%s: header %s is %q, want %q", m.Method, header, got, want)
		}
	}
	if _, ok := m.Params.Meta.Caps.Extensions["io.modelcontextprotocol/tasks"]; !ok || m.Params.Meta.Version != mcpwire.ModernVersion {
		f.t.Errorf("%s: _meta does not declare version %s and the tasks extension", m.Method, mcpwire.ModernVersion)
	}
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	defer f.mu.Unlock()
	switch m.Method {
	case "tools/call":
		id := fmt.Sprintf("task-%d", len(f.texts)+1)
		f.texts[id] = m.Params.Arguments.Text
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"task","taskId":%q,"status":"working","ttlMs":null}}`, m.ID, id)
	case "tasks/get":
		f.polls[m.Params.TaskID]++
		if f.polls[m.Params.TaskID] <= f.workingPolls {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","taskId":%q,"status":"working"}}`, m.ID, m.Params.TaskID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","taskId":%q,"status":"completed","result":{"content":[{"type":"text","text":%q}]}}}`,
			m.ID, m.Params.TaskID, f.texts[m.Params.TaskID]+f.suffix)
	default:
		f.t.Errorf("unexpected %s", m.Method)
	}
}

func TestTaskSessionOnTheExtensionReadsTheInlinedResult(t *testing.T) {
	for _, suffix := range []string{"", "!"} {
		f := &fakeExtension{t: t, workingPolls: 1, suffix: suffix, texts: map[string]string{}, polls: map[string]int{}}
		srv := httptest.NewServer(f)
		tasks := mcpwire.NewTaskSession(mcpwire.NewModernHTTP(srv.Client(), srv.URL+"/mcp"), mcpwire.ExtensionTasks)
		err := tasks.Echo(t.Context(), "hello")
		srv.Close()
		switch {
		case suffix == "" && err != nil:
			t.Fatalf("a correct extension task life was rejected: %v", err)
		case suffix != "" && err == nil:
			t.Fatal("an extension task whose result is not the echo was accepted")
		case suffix == "":
			if got := tasks.RequestsPerTask(); got != 3 {
				t.Errorf("RequestsPerTask = %v; want 3 (create, two polls, nothing more)", got)
			}
		}
	}
}

func TestTaskSessionRejectsWrongLives(t *testing.T) {
	for name, spoil := range map[string]func(f *fakeTasks){
		"created failed":         func(f *fakeTasks) { f.createdStatus = "failed" },
		"polled to cancelled":    func(f *fakeTasks) { f.pollStatus = "cancelled" },
		"polled to input":        func(f *fakeTasks) { f.pollStatus = "input_required" },
		"result of another task": func(f *fakeTasks) { f.relatedTask = "task-999" },
		"result with other text": func(f *fakeTasks) { f.resultSuffix = "!" },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeTasks(t)
			spoil(f)
			s, err := dial(t, newFake(t, f.answer))
			if err != nil {
				t.Fatal(err)
			}
			if err := mcpwire.NewTaskSession(s, mcpwire.LegacyTasks).Echo(t.Context(), "hello"); err == nil {
				t.Fatal("a wrong task life was accepted")
			} else {
				t.Log(err)
			}
		})
	}
}

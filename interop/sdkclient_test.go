package interop_test

import (
	stdjson "encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// observations is what interop/js/sdk-client.cjs reports.
type observations struct {
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Capabilities map[string]stdjson.RawMessage `json:"capabilities"`
	Tools        []struct {
		Name        string             `json:"name"`
		Description string             `json:"description"`
		InputSchema stdjson.RawMessage `json:"inputSchema"`
	} `json:"tools"`
	Echo struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	} `json:"echo"`
	Add struct {
		StructuredContent map[string]float64 `json:"structuredContent"`
		IsError           bool               `json:"isError"`
	} `json:"add"`
	Countdown struct {
		Text     string `json:"text"`
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		} `json:"progress"`
	} `json:"countdown"`
	UnknownTool struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	} `json:"unknownTool"`
	BadArguments struct {
		Result *struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"badArguments"`
	Resources []struct {
		URI string `json:"uri"`
	} `json:"resources"`
	ResourceTemplates []struct {
		URITemplate string `json:"uriTemplate"`
	} `json:"resourceTemplates"`
	ReadStatic []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"readStatic"`
	ReadTemplate []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"readTemplate"`
	Prompts []struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	} `json:"prompts"`
	Greeting []struct {
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"greeting"`
	Cancel struct {
		Rejected                    bool  `json:"rejected"`
		ServerObservedCancellations int64 `json:"serverObservedCancellations"`
	} `json:"cancel"`
	AfterCancel string `json:"afterCancel"`
	Elicitation struct {
		Text  string   `json:"text"`
		Asked []string `json:"asked"`
	} `json:"elicitation"`
	Task struct {
		Messages []string `json:"messages"`
		Text     string   `json:"text"`
	} `json:"task"`
}

// runSDKClient runs interop/js/sdk-client.cjs with args and decodes what it
// observed.
func runSDKClient(t *testing.T, env []string, args ...string) *observations {
	t.Helper()
	var obs observations
	runScript(t, "the TypeScript SDK client", "sdk-client.cjs", env, &obs, args...)
	return &obs
}

// checkObservations asserts what the TypeScript SDK saw of the interop
// fixture, whatever the transport.
func checkObservations(t *testing.T, o *observations) {
	t.Helper()
	if o.ServerInfo.Name != "weft-interop-server" || o.ServerInfo.Version != "1.0.0" {
		t.Errorf("serverInfo = %+v", o.ServerInfo)
	}
	for _, c := range []string{"tools", "resources", "prompts"} {
		if _, ok := o.Capabilities[c]; !ok {
			t.Errorf("the server did not declare the %s capability: %v", c, o.Capabilities)
		}
	}
	var names []string
	for _, tool := range o.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || len(tool.InputSchema) == 0 {
			t.Errorf("tool %s lacks a description or an inputSchema", tool.Name)
		}
	}
	for _, want := range []string{"echo", "add", "countdown", "wait_for_cancel", "cancellations"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %v, missing %s", names, want)
		}
	}
	if o.Echo.Text != "echo: hi from TypeScript" || o.Echo.IsError {
		t.Errorf("echo = %+v", o.Echo)
	}
	if o.Add.StructuredContent["sum"] != 5 || o.Add.IsError {
		t.Errorf("add = %+v, want structuredContent {sum: 5}", o.Add)
	}
	if o.Countdown.Text != "done" || len(o.Countdown.Progress) != 3 {
		t.Errorf("countdown = %+v, want text done after 3 progress notifications", o.Countdown)
	} else {
		for i, p := range o.Countdown.Progress {
			if p.Progress != float64(i+1) || p.Total != 3 || p.Message == "" {
				t.Errorf("progress %d = %+v, want %d/3 with a message", i, p, i+1)
			}
		}
	}
	switch u := o.UnknownTool; {
	case u.Error != nil:
		if u.Error.Code != -32602 {
			t.Errorf("calling an unknown tool gave JSON-RPC error %d, want -32602", u.Error.Code)
		}
	case u.Result == nil || !u.Result.IsError:
		t.Errorf("calling an unknown tool succeeded: %+v", u)
	}
	if b := o.BadArguments; b.Result == nil || !b.Result.IsError || !strings.Contains(b.Result.Text, `invalid arguments for tool "add"`) {
		t.Errorf("add with a string for a number = %+v, error %+v; want a tool error naming the tool (SEP-1303)", b.Result, b.Error)
	}
	if len(o.Resources) != 1 || o.Resources[0].URI != "interop://static/hello" {
		t.Errorf("resources/list = %+v", o.Resources)
	}
	if len(o.ResourceTemplates) != 1 || o.ResourceTemplates[0].URITemplate != "interop://items/{id}" {
		t.Errorf("resources/templates/list = %+v", o.ResourceTemplates)
	}
	if len(o.ReadStatic) != 1 || o.ReadStatic[0].Text != "hello from weft" || o.ReadStatic[0].URI != "interop://static/hello" {
		t.Errorf("reading interop://static/hello = %+v", o.ReadStatic)
	}
	if len(o.ReadTemplate) != 1 || o.ReadTemplate[0].Text != "item 42" || o.ReadTemplate[0].URI != "interop://items/42" {
		t.Errorf("reading interop://items/42 = %+v", o.ReadTemplate)
	}
	if len(o.Prompts) != 1 || o.Prompts[0].Name != "greeting" || len(o.Prompts[0].Arguments) != 1 || !o.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts/list = %+v", o.Prompts)
	}
	if len(o.Greeting) != 1 || o.Greeting[0].Role != "user" || o.Greeting[0].Text != "Hello, Ada!" {
		t.Errorf("prompts/get greeting = %+v", o.Greeting)
	}
	if !o.Cancel.Rejected || o.Cancel.ServerObservedCancellations != 1 {
		t.Errorf("cancellation = %+v, want the call rejected and exactly one handler cancelled on the server", o.Cancel)
	}
	if o.AfterCancel != "echo: still here" {
		t.Errorf("echo after the cancellation = %q", o.AfterCancel)
	}
}

// checkQuestionAndTask asserts the steps only the v1 client script takes
// (sdk-client.cjs): an elicitation answered in the legacy era, and a task run
// to its result. The v2 client checks its own (checkModernObservations).
func checkQuestionAndTask(t *testing.T, o *observations) {
	t.Helper()
	if o.Elicitation.Text != "Hello, Ada!" || !slices.Equal(o.Elicitation.Asked, []string{"What is your name?"}) {
		t.Errorf("elicitation = %+v, want one question answered with Ada", o.Elicitation)
	}
	if len(o.Task.Messages) == 0 || o.Task.Messages[0] != "taskCreated" || o.Task.Messages[len(o.Task.Messages)-1] != "result" ||
		o.Task.Text != "echo: as a task" {
		t.Errorf("task = %+v, want it created, then its result", o.Task)
	}
}

// TestTypeScriptClientOverStdio: the official TypeScript SDK client starts
// weft's server (this test binary in serving mode) and drives it over stdio.
func TestTypeScriptClientOverStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := runSDKClient(t, []string{serveEnv + "=stdio"}, "--stdio", self)
	checkObservations(t, o)
	checkQuestionAndTask(t, o)
}

// TestTypeScriptClientOverStreamableHTTP: the official TypeScript SDK
// client drives weft's server over Streamable HTTP.
func TestTypeScriptClientOverStreamableHTTP(t *testing.T) {
	o := runSDKClient(t, nil, "--http", serveHTTP(t))
	checkObservations(t, o)
	checkQuestionAndTask(t, o)
}

// TestTypeScriptClientOverWebSocket: the TypeScript SDK v1
// WebSocketClientTransport (subprotocol mcp, one message per text frame)
// drives weft's server on its Streamable HTTP endpoint: tools, progress,
// cancellation, an elicitation and a task.
func TestTypeScriptClientOverWebSocket(t *testing.T) {
	o := runSDKClient(t, nil, "--ws", "ws"+strings.TrimPrefix(serveHTTP(t), "http"))
	checkObservations(t, o)
	checkQuestionAndTask(t, o)
}

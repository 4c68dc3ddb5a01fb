package mcp

import (
	"errors"
	"strings"
	"testing"
)

// Spec example: InputRequiredResult with elicitation, sampling and request state.
const inputRequiredExample = `{
  "resultType": "input_required",
  "inputRequests": {
    "github_login": {
      "method": "elicitation/create",
      "params": {
        "message": "Please provide your GitHub username",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
      }
    },
    "capital_of_france": {
      "method": "sampling/createMessage",
      "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
        "maxTokens": 100
      }
    }
  },
  "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"
}`

func TestInputRequiredResultExamples(t *testing.T) {
	r := roundTrip[InputRequiredResult](t, inputRequiredExample, "")
	if r.ResultType != ResultInputRequired || r.RequestState != "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0" {
		t.Errorf("result = %+v", r)
	}
	ep, err := r.InputRequests["github_login"].ElicitParams()
	if err != nil || ep.Message != "Please provide your GitHub username" || ep.RequestedSchema.Properties[0].Name != "name" {
		t.Errorf("ElicitParams() = %+v, %v", ep, err)
	}
	sp, err := r.InputRequests["capital_of_france"].CreateMessageParams()
	if err != nil || sp.MaxTokens != 100 {
		t.Errorf("CreateMessageParams() = %+v, %v", sp, err)
	}
	if _, err := r.InputRequests["capital_of_france"].ElicitParams(); err == nil {
		t.Error("a sampling request decoded as elicitation")
	}
	// Spec example: request state only (load shedding).
	roundTrip[InputRequiredResult](t, `{"resultType":"input_required","requestState":"eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9"}`, "")
}

func TestInputResponsesExample(t *testing.T) {
	// Spec example: InputResponses/elicitation-and-sampling-input-responses.
	r := roundTrip[InputResponses](t, `{
	  "github_login": {"action": "accept", "content": {"name": "octocat"}},
	  "capital_of_france": {"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
	    "model": "claude-3-sonnet-20240307", "stopReason": "endTurn"}}`, "")
	er, err := r.ElicitResult("github_login")
	if err != nil || er.Action != ElicitAccept {
		t.Errorf("ElicitResult() = %+v, %v", er, err)
	}
	cm, err := r.CreateMessageResult("capital_of_france")
	if err != nil || cm.Model != "claude-3-sonnet-20240307" || cm.Content[0].(*TextContent).Text != "The capital of France is Paris." {
		t.Errorf("CreateMessageResult() = %+v, %v", cm, err)
	}
	if _, err := r.ListRootsResult("roots"); !errors.Is(err, ErrAbsent) {
		t.Errorf("missing key: err = %v, want ErrAbsent", err)
	}
	bad := InputResponses{"k": []byte(`{"action":5}`)}
	if _, err := bad.ElicitResult("k"); err == nil || errors.Is(err, ErrAbsent) {
		t.Errorf("malformed response: err = %v", err)
	}
	lr, err := (InputResponses{"r": []byte(`{"roots":[{"uri":"file:///a"}]}`)}).ListRootsResult("r")
	if err != nil || len(lr.Roots) != 1 {
		t.Errorf("ListRootsResult() = %+v, %v", lr, err)
	}
}

func TestNewInputRequest(t *testing.T) {
	r, err := NewInputRequest(MethodElicitationCreate, &ElicitParams{Mode: ElicitModeURL, Message: "m", URL: "https://x"})
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, encode(t, &r), `{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}`)
	r, err = NewInputRequest(MethodRootsList, nil)
	if err != nil || string(encode(t, &r)) != `{"method":"roots/list"}` {
		t.Errorf("roots request = %s, %v", encode(t, &r), err)
	}
	if _, err := NewInputRequest(MethodSamplingCreateMessage, make(chan int)); err == nil {
		t.Error("unencodable params accepted")
	}
}

func TestInputRequestRequiredCapabilities(t *testing.T) {
	tests := []struct {
		wire, want string
	}{
		{`{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`, `{"elicitation":{}}`},
		{`{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}`, `{"elicitation":{"url":{}}}`},
		{`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`, `{"sampling":{}}`},
		{`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, `{"sampling":{"tools":{}}}`},
		{`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"includeContext":"allServers"}}`, `{"sampling":{"context":{}}}`},
		{`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"includeContext":"none"}}`, `{"sampling":{}}`},
		{`{"method":"roots/list"}`, `{"roots":{}}`},
	}
	for _, tt := range tests {
		r := roundTrip[InputRequest](t, tt.wire, "")
		caps, err := r.RequiredCapabilities()
		if err != nil {
			t.Errorf("%s: %v", tt.wire, err)
			continue
		}
		assertSameJSON(t, encode(t, &caps), tt.want)
	}
	// A form-mode request needs form support: a URL-only client cannot answer.
	r := roundTrip[InputRequest](t, tests[0].wire, "")
	caps, _ := r.RequiredCapabilities()
	urlOnly := ClientCapabilities{Elicitation: &ElicitationCapability{URL: JSONObject{}}}
	if urlOnly.Covers(caps) {
		t.Error("a URL-only client covers a form elicitation")
	}
	for _, bad := range []string{
		`{"method":"tools/call","params":{}}`,
		`{"method":"elicitation/create"}`,
		`{"method":"sampling/createMessage","params":{"messages":"no"}}`,
	} {
		r := roundTrip[InputRequest](t, bad, "")
		if _, err := r.RequiredCapabilities(); err == nil {
			t.Errorf("%s: RequiredCapabilities succeeded", bad)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: empty error", bad)
		}
	}
}

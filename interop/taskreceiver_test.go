package interop_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// receiverObservations is what interop/js/task-receiver.mjs reports.
type receiverObservations struct {
	ProtocolVersion string `json:"protocolVersion"`
	ElicitAsTask    struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	} `json:"elicit_as_task"`
	SampleAsTask struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	} `json:"sample_as_task"`
	CancelClientTask struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	} `json:"cancel_client_task"`
	Received []struct {
		Method  string `json:"method"`
		Message string `json:"message"`
		TaskID  string `json:"taskId"`
	} `json:"received"`
}

// TestTasksReceiver: weft's server has the client run elicitation and
// sampling as tasks (client-hosted tasks, 2025-11-25), and the official
// Tasks receiver runs them: the server polls the client's tasks/get, fetches
// the outcome with tasks/result, cancels one and lists them, over
// Streamable HTTP and stdio.
func TestTasksReceiver(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, wire := range []string{"http", "stdio"} {
		t.Run(wire, func(t *testing.T) {
			var o receiverObservations
			if wire == "http" {
				runScript(t, "the Tasks receiver", "task-receiver.mjs", nil, &o, "--http", serveHTTP(t))
			} else {
				runScript(t, "the Tasks receiver", "task-receiver.mjs", []string{serveEnv + "=stdio"}, &o, "--stdio", self)
			}
			if o.ProtocolVersion != mcp.LatestLegacyVersion {
				t.Errorf("negotiated %q, want %s", o.ProtocolVersion, mcp.LatestLegacyVersion)
			}
			if !regexp.MustCompile(`^Hello, Grace! \(client task \S+, completed\)$`).MatchString(o.ElicitAsTask.Text) || o.ElicitAsTask.IsError {
				t.Errorf("elicit_as_task answered %+v", o.ElicitAsTask)
			}
			if o.SampleAsTask.Text != `interop-model said "hi there"` || o.SampleAsTask.IsError {
				t.Errorf("sample_as_task answered %+v", o.SampleAsTask)
			}
			if o.CancelClientTask.Text != "cancelled; the client lists 3 tasks" || o.CancelClientTask.IsError {
				t.Errorf("cancel_client_task answered %+v", o.CancelClientTask)
			}
			if len(o.Received) != 3 || o.Received[0].Method != mcp.MethodElicitationCreate || o.Received[1].Method != mcp.MethodSamplingCreateMessage ||
				o.Received[2].Message != "Wait for me" {
				t.Errorf("the receiver ran %+v, want the elicitation, the sampling and the cancelled elicitation", o.Received)
			}
			for _, r := range o.Received {
				if r.TaskID == "" {
					t.Errorf("the receiver ran %s outside a task", r.Method)
				}
			}
		})
	}
}

package adversarial

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
)

// toolText returns the text of a tools/call result's only text block, and
// fails the test on an error response or a tool error.
func toolText(t *testing.T, r *jsonrpc.Response) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("response %s is error %d: %s", r.ID, r.Error.Code, r.Error.Message)
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res, json.RejectUnknownMembers(false)); err != nil || len(res.Content) != 1 || res.IsError {
		t.Fatalf("response %s: result %.300s is not one text block of a successful call (%v)", r.ID, r.Result, err)
	}
	return res.Content[0].Text
}

// wantText checks that a tools/call result's text is want.
func wantText(t *testing.T, r *jsonrpc.Response, want string) {
	t.Helper()
	if got := toolText(t, r); !strings.Contains(got, want) {
		t.Fatalf("response %s: text %q, want %q", r.ID, got, want)
	}
}

// wantSum checks that an add call's result is sum.
func wantSum(t *testing.T, r *jsonrpc.Response, sum int) {
	t.Helper()
	var out struct {
		Sum int `json:"sum"`
	}
	if err := json.Unmarshal([]byte(toolText(t, r)), &out); err != nil || out.Sum != sum {
		t.Fatalf("response %s: add gave %q, want sum %d", r.ID, toolText(t, r), sum)
	}
}

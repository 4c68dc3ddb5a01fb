package server

import (
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

func TestTasks_CreationOverALimitIsRefusedSayingWhichAndWhatToDo(t *testing.T) {
	rt := newRuntime(t, tasks.WithLimits(2, 0))
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	first := createLegacyTask(t, c, "hold", `{}`).TaskID
	createLegacyTask(t, c, "hold", `{}`)

	e := c.callErr(mcp.MethodToolsCall, `{"name":"hold","arguments":{},"task":{}}`)
	wantCode(t, "the third task of one principal", e, jsonrpc.CodeServerBusy)
	for _, says := range []string{"2 unfinished tasks", "wait for one to finish or cancel one"} {
		if !strings.Contains(e.Message, says) {
			t.Errorf("the refusal %q does not say %q", e.Message, says)
		}
	}
	if got := member(t, e.Data, "limit"); got != `"principal"` {
		t.Errorf("the refusal's data names limit %s, want \"principal\"", got)
	}
	// The tasks already stored are untouched.
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+first+`"}`), "status"); s != `"working"` {
		t.Errorf("after the refusal the first task is %s, want working", s)
	}
	g.release()
}

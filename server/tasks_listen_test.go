package server

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

// serveAs serves one modern request through ServeRequest as the
// authenticated principal, declaring caps, and returns the response.
func serveAs(t testing.TB, s *Server, principal, caps, method, params string) *jsonrpc.Response {
	t.Helper()
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:%s}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities, caps)
	if params == "" || params == "{}" {
		params = "{" + meta + "}"
	} else {
		params = "{" + meta + "," + strings.TrimPrefix(params, "{")
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	return s.ServeRequest(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: method, Params: stdjson.RawMessage(params)},
		transport.RequestInfo{Principal: principal}, nil)
}

// createAs creates an extension task as the principal and returns its ID.
func createAs(t testing.TB, s *Server, principal, tool string) string {
	t.Helper()
	resp := serveAs(t, s, principal, extCaps, mcp.MethodToolsCall, `{"name":"`+tool+`","arguments":{}}`)
	if resp.Error != nil {
		t.Fatalf("tools/call %s as %q: %v", tool, principal, resp.Error)
	}
	var created mcp.ExtCreateTaskResult
	decode(t, resp.Result, &created)
	if created.TaskID == "" {
		t.Fatalf("tools/call %s as %q answered %s", tool, principal, resp.Result)
	}
	return created.TaskID
}

func TestExtensionTasks_ListenNotifiesTaskChangesToItsOwnerOnly(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	step := make(chan struct{})
	s.AddRawTool(&mcp.Tool{Name: "chatty"}, func(ctx context.Context, r *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
		<-step
		r.Progress(ctx, 1, 2, "half")
		r.Log(ctx, mcp.LevelError, "tool", "logged")
		<-step
		return textResult("chatted"), nil
	}, optional)
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	mine := createExtensionTask(t, c, "chatty", `{}`).TaskID
	foreign := createAs(t, s, "bob", "hold")
	ack, _ := listenOn(t, c, fmt.Sprintf(`{"taskIds":[%q,%q,"no-such-task",%q]}`, mine, foreign, mine))
	if got := member(t, ack.Params, "notifications"); got != `{"taskIds":["`+mine+`"]}` {
		t.Errorf("acknowledged %s, want only the caller's own task, once", got)
	}
	var statuses []string
	for {
		n := c.nextNote()
		if n.Method != mcp.NotificationTasks {
			t.Fatalf("the listen stream carried %s %s; only notifications/tasks belong on it", n.Method, n.Params)
		}
		if member(t, n.Params, "_meta", mcp.MetaSubscriptionID) == "" || hasMember(t, n.Params, "resultType") {
			t.Errorf("notification %s: want the subscription id and no resultType", n.Params)
		}
		var d mcp.DetailedTask
		decode(t, n.Params, &d)
		if d.TaskID != mine || d.CreatedAt == "" {
			t.Fatalf("notification for %+v", d)
		}
		statuses = append(statuses, string(d.Status)+":"+d.StatusMessage)
		switch {
		case len(statuses) == 1:
			step <- struct{}{}
		case d.StatusMessage == "half":
			step <- struct{}{}
		}
		if d.Status == mcp.TaskCompleted {
			if text1(t, d.TaskResult) != "chatted" {
				t.Errorf("the completed notification inlines %s", d.TaskResult)
			}
			break
		}
	}
	if statuses[0] != "working:" || !strings.Contains(strings.Join(statuses, ","), "working:half") {
		t.Errorf("notifications %v, want the state at once, then the status message change, then completion", statuses)
	}
}

func TestExtensionTasks_ListenWithTaskIDsNeedsTheExtension(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20260728, `{}`, nil)
	e := c.callErr(mcp.MethodSubscriptionsListen, `{"notifications":{"taskIds":["x"]}}`)
	wantCode(t, "listen with taskIds", e, mcp.CodeMissingRequiredClientCapability)
	if member(t, e.Data, "requiredCapabilities", "extensions", mcp.ExtensionTasks) != "{}" {
		t.Errorf("data %s", e.Data)
	}
}

func TestExtensionTasks_OtherPrincipalsTasksLookMissing(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	s := taskServer(t, rt, g, nil)
	id := createAs(t, s, "alice", "ask")
	awaitStatus(t, rt, "alice", id, tasks.StatusInputRequired)
	unknown := serveAs(t, s, "bob", extCaps, mcp.MethodTasksGet, `{"taskId":"no-such-task"}`).Error
	for _, req := range []struct{ method, params string }{
		{mcp.MethodTasksGet, `{"taskId":"` + id + `"}`},
		{mcp.MethodTasksUpdate, `{"taskId":"` + id + `","inputResponses":{"input-1":{"action":"accept","content":{"name":"mallory"}}}}`},
		{mcp.MethodTasksCancel, `{"taskId":"` + id + `"}`},
	} {
		e := serveAs(t, s, "bob", extCaps, req.method, req.params).Error
		if e == nil || e.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("%s of alice's task as bob: %v, want -32602", req.method, e)
		}
		if strings.ReplaceAll(e.Message, id, "ID") != strings.ReplaceAll(unknown.Message, "no-such-task", "ID") {
			t.Errorf("%s: %q differs from the answer for an unknown task %q", req.method, e.Message, unknown.Message)
		}
	}
	// Alice's task is untouched: still waiting for her answer.
	resp := serveAs(t, s, "alice", extCaps, mcp.MethodTasksGet, `{"taskId":"`+id+`"}`)
	var got mcp.ExtGetTaskResult
	decode(t, resp.Result, &got)
	if got.Status != mcp.TaskInputRequired {
		t.Errorf("alice's task is %s after bob's attempts", got.Status)
	}
	// An unauthenticated request is no principal's either.
	if e := serveAs(t, s, "", extCaps, mcp.MethodTasksGet, `{"taskId":"`+id+`"}`).Error; e == nil || e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unauthenticated tasks/get of alice's task: %v", e)
	}
	var ack *jsonrpc.Request
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeRequest(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(9), Method: mcp.MethodSubscriptionsListen, Params: stdjson.RawMessage(
			fmt.Sprintf(`{"_meta":{%q:%q,%q:%s},"notifications":{"taskIds":[%q]}}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities, extCaps, id))},
			transport.RequestInfo{Principal: "bob"}, rec.notify)
	}()
	ack = rec.next(t)
	var p mcp.SubscriptionsAcknowledgedNotificationParams
	if err := json.Unmarshal(ack.Params, &p); err != nil || len(p.Notifications.TaskIDs) != 0 {
		t.Errorf("bob's listen on alice's task acknowledged %s", ack.Params)
	}
	cancel()
	<-done
	g.release()
}

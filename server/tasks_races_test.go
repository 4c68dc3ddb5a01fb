package server

import (
	"context"
	stdjson "encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// Races between the parties of a task: a cancel against the handler's
// completion, a cancel while the task waits for input, tasks/result asked
// before the task ends, a task expiring while it runs, and principals
// guessing each other's task IDs.

func TestTaskRaces_CancelAgainstCompletion(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	// Each round's handler waits for that round's channel; a cancel that
	// wins before the handler even starts means it never runs.
	var current atomic.Pointer[chan struct{}]
	s.AddRawTool(&mcp.Tool{Name: "racer"}, func(ctx context.Context, _ *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
		<-*current.Load()
		return textResult("finished"), nil
	}, optional)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	for range 25 {
		finish := make(chan struct{})
		current.Store(&finish)
		id := createLegacyTask(t, c, "racer", `{}`).TaskID
		var wg sync.WaitGroup
		wg.Add(1)
		var cancelRes stdjson.RawMessage
		var cancelErr error
		go func() {
			defer wg.Done()
			cancelRes, cancelErr = c.call(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
		}()
		close(finish) // the handler returns while the cancel is under way
		wg.Wait()
		final := awaitTask(t, rt, c.session.ID(), id, "finished", tasks.Task.Terminal)
		switch {
		case cancelErr == nil:
			// The cancel won: it answered cancelled, and the late result
			// did not overwrite it.
			if member(t, cancelRes, "status") != `"cancelled"` || final.Status != tasks.StatusCancelled {
				t.Fatalf("cancel answered %s, the task ended %s", cancelRes, final.Status)
			}
		default:
			// The result won: the cancel was refused as for any finished task.
			e, ok := cancelErr.(*jsonrpc.Error)
			if !ok || e.Code != jsonrpc.CodeInvalidParams || final.Status != tasks.StatusCompleted {
				t.Fatalf("cancel failed with %v, the task ended %s", cancelErr, final.Status)
			}
		}
	}
}

func TestTaskRaces_CancelWhileWaitingForInput(t *testing.T) {
	rt := newRuntime(t)
	// The client never answers: its elicitation stays in flight.
	asked := make(chan stdjson.RawMessage, 1)
	answer := func(ctx context.Context, method string, params stdjson.RawMessage) (any, error) {
		asked <- params
		<-ctx.Done()
		return nil, ctx.Err()
	}
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, legacyTaskCaps, answer)
	id := createLegacyTask(t, c, "ask", `{}`).TaskID
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	result := make(chan *jsonrpc.Error, 1)
	go func() {
		res, err := c.call(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
		result <- wantRPCError(t, "tasks/result", res, err)
	}()
	<-asked // the question is with the client
	if s := member(t, c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`), "status"); s != `"cancelled"` {
		t.Fatalf("cancel answered %s", s)
	}
	select {
	case e := <-result:
		if e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "cancelled") {
			t.Errorf("tasks/result of the cancelled task: %d %q", e.Code, e.Message)
		}
	case <-time.After(waitFor):
		t.Fatal("tasks/result did not end when its task was cancelled")
	}
	// The question nobody needs any more is withdrawn.
	n := c.nextNoteOf(mcp.NotificationCancelled)
	if !strings.Contains(string(n.Params), "elicitation/create") {
		t.Errorf("notifications/cancelled %s", n.Params)
	}
}

func TestTaskRaces_ResultRequestedBeforeTheTaskFinishes(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, c, "hold", `{}`).TaskID
	// Several tasks/result calls wait at once, before the handler has even
	// been let go; all get the same answer.
	const waiters = 3
	results := make(chan stdjson.RawMessage, waiters)
	for range waiters {
		go func() {
			res, err := c.call(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
			if err != nil {
				t.Errorf("tasks/result: %v", err)
			}
			results <- res
		}()
	}
	g.awaitStart(t)
	g.release()
	for range waiters {
		if got := text1(t, <-results); got != "held" {
			t.Errorf("tasks/result %q", got)
		}
	}
}

func TestTaskRaces_ExpiryOfARunningTask(t *testing.T) {
	clock := newFakeClock()
	rt := newRuntime(t, tasks.WithClock(clock), tasks.WithSweepInterval(time.Millisecond), tasks.WithTTL(time.Minute, time.Hour))
	g := newGate()
	s := taskServer(t, rt, g, nil)
	legacy := open(t, s, mcp.Version20251125, `{}`, nil)
	modern := open(t, s, mcp.Version20260728, extCaps, nil)
	lid := createLegacyTask(t, legacy, "hold", `{"ttl":1000}`).TaskID
	mid := createExtensionTask(t, modern, "hold", `{}`).TaskID
	g.awaitStart(t)
	g.awaitStart(t)
	result := make(chan *jsonrpc.Error, 1)
	go func() {
		res, err := legacy.call(mcp.MethodTasksResult, `{"taskId":"`+lid+`"}`)
		result <- wantRPCError(t, "tasks/result", res, err)
	}()
	clock.Advance(2 * time.Minute) // both outlive their TTL while running
	for range 2 {
		if cause := g.awaitEnd(t); cause != tasks.ErrExpired {
			t.Errorf("an expired task's handler ended with %v, want tasks.ErrExpired", cause)
		}
	}
	select {
	case e := <-result:
		wantCode(t, "tasks/result of an expired task", e, jsonrpc.CodeInvalidParams)
	case <-time.After(waitFor):
		t.Fatal("tasks/result did not end when its task expired")
	}
	wantCode(t, "legacy tasks/get", legacy.callErr(mcp.MethodTasksGet, `{"taskId":"`+lid+`"}`), jsonrpc.CodeInvalidParams)
	wantCode(t, "extension tasks/get", modern.callErr(mcp.MethodTasksGet, `{"taskId":"`+mid+`"}`), jsonrpc.CodeInvalidParams)
}

func TestTaskRaces_TwoPrincipalsGuessEachOthersIDs(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	s := taskServer(t, rt, g, nil)
	alice := open(t, s, mcp.Version20251125, `{}`, nil)
	bob := open(t, s, mcp.Version20251125, `{}`, nil)
	aliceID := createLegacyTask(t, alice, "hold", `{}`).TaskID
	bobID := createLegacyTask(t, bob, "hold", `{}`).TaskID
	unknown := bob.callErr(mcp.MethodTasksGet, `{"taskId":"no-such-task"}`)
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
		e := bob.callErr(m, `{"taskId":"`+aliceID+`"}`)
		if e.Code != unknown.Code || strings.ReplaceAll(e.Message, aliceID, "ID") != strings.ReplaceAll(unknown.Message, "no-such-task", "ID") {
			t.Errorf("%s of another session's task: %d %q; want it to look like a missing one (%q)", m, e.Code, e.Message, unknown.Message)
		}
	}
	var page mcp.ListTasksResult
	decode(t, bob.mustCall(mcp.MethodTasksList, `{}`), &page)
	if len(page.Tasks) != 1 || page.Tasks[0].TaskID != bobID {
		t.Errorf("bob lists %+v, want only his own task", page.Tasks)
	}
	// IDs are unguessable: 128 bits and more, header-safe.
	if len(aliceID) < 26 || strings.ContainsAny(aliceID, " /+=\"") {
		t.Errorf("task ID %q", aliceID)
	}
	if s := member(t, alice.mustCall(mcp.MethodTasksGet, `{"taskId":"`+aliceID+`"}`), "status"); s != `"working"` {
		t.Errorf("alice's task is %s after bob's guesses", s)
	}
	g.release()
}

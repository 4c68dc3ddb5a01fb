package tasks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// returning registers a handler that returns what it is given once released.
func returning(rt *tasks.Runtime, name string, release <-chan struct{}, res tasks.Result, err error) {
	rt.Register("tools/call", name, func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		if release != nil {
			<-release
		}
		return res, err
	}, tasks.Policy{})
}

func TestStartCreatesWorkingTaskVisibleOnEveryInstance(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	release := make(chan struct{})
	returning(a, "job", release, tasks.Result{Value: raw(`{"content":[]}`)}, nil)

	created := start(t, a, "alice", "job")
	if created.Status != tasks.StatusWorking {
		t.Fatalf("a new task is %s, want working", created.Status)
	}
	got, err := b.Get(testCtx(t), "alice", created.ID)
	if err != nil {
		t.Fatalf("Get on another instance right after Start: %v", err)
	}
	want := c.clock.Now()
	if got.Status != tasks.StatusWorking || got.Method != "tools/call" || got.Name != "job" || got.Principal != "alice" ||
		!got.CreatedAt.Equal(want) || !got.UpdatedAt.Equal(want) || got.TTL != tasks.DefaultTTL ||
		got.PollInterval != 50*time.Millisecond || got.Result != nil || got.Error != nil {
		t.Fatalf("Get after Start returned %+v", got)
	}
	close(release)
	wait(t, b, "alice", created.ID)
}

func TestTaskIDsAreLongRandomAndHeaderSafe(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a", tasks.WithLimits(0, 0)) // more tasks than one principal may leave running
	returning(rt, "job", nil, tasks.Result{Value: raw(`{}`)}, nil)
	seen := map[string]bool{}
	for range 200 {
		id := start(t, rt, "alice", "job").ID
		// 26 base32 characters carry 130 random bits.
		if len(id) < 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
			t.Fatalf("task ID %q is not ≥ 26 base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("task ID %q was issued twice", id)
		}
		seen[id] = true
	}
}

func TestHandlerOutcomes(t *testing.T) {
	rpcErr := jsonrpc.NewError(-32010, "upstream rate limit").WithData(map[string]int{"retryAfter": 3})
	cases := []struct {
		name    string
		handler tasks.HandlerFunc
		check   func(*testing.T, tasks.Task)
	}{
		{"result completes", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			return tasks.Result{Value: raw(`{"content":[{"type":"text","text":"42"}]}`)}, nil
		}, func(t *testing.T, got tasks.Task) {
			if got.Status != tasks.StatusCompleted || string(got.Result) != `{"content":[{"type":"text","text":"42"}]}` ||
				got.IsError || got.Error != nil || got.StatusMessage != "" {
				t.Fatalf("got %+v, want completed with the result", got)
			}
		}},
		{"tool error completes with IsError", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			return tasks.Result{Value: raw(`{"content":[],"isError":true}`), IsError: true}, nil
		}, func(t *testing.T, got tasks.Task) {
			if got.Status != tasks.StatusCompleted || !got.IsError || string(got.Result) != `{"content":[],"isError":true}` {
				t.Fatalf("got %+v, want completed, IsError, with the result", got)
			}
		}},
		{"JSON-RPC error fails with that error", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			return tasks.Result{}, rpcErr
		}, func(t *testing.T, got tasks.Task) {
			if got.Status != tasks.StatusFailed || got.Error == nil || got.Error.Code != -32010 ||
				got.Error.Message != "upstream rate limit" || string(got.Error.Data) != `{"retryAfter":3}` ||
				got.StatusMessage != "upstream rate limit" || got.Result != nil {
				t.Fatalf("got %+v (error %+v), want failed with the handler's JSON-RPC error", got, got.Error)
			}
		}},
		{"Go error fails with an internal error saying why", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			return tasks.Result{}, errors.New("disk full")
		}, func(t *testing.T, got tasks.Task) {
			if got.Status != tasks.StatusFailed || got.Error == nil || got.Error.Code != jsonrpc.CodeInternalError ||
				!strings.Contains(got.Error.Message, "disk full") || !strings.Contains(got.StatusMessage, "disk full") {
				t.Fatalf("got %+v (error %+v), want failed, -32603, saying disk full", got, got.Error)
			}
		}},
		{"panic fails", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			panic("nil map")
		}, func(t *testing.T, got tasks.Task) {
			if got.Status != tasks.StatusFailed || !strings.Contains(got.StatusMessage, "panicked: nil map") {
				t.Fatalf("got %+v, want failed saying the handler panicked", got)
			}
		}},
		{"a result that is not an object fails", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			return tasks.Result{Value: raw(`[1,2]`)}, nil
		}, func(t *testing.T, got tasks.Task) {
			if got.Status != tasks.StatusFailed || !strings.Contains(got.StatusMessage, "not a JSON object") {
				t.Fatalf("got %+v, want failed saying the result is not an object", got)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			a, b := c.instance("a"), c.instance("b")
			a.Register("tools/call", "job", tc.handler, tasks.Policy{})
			task := start(t, a, "alice", "job")
			tc.check(t, wait(t, b, "alice", task.ID))
		})
	}
}

func TestHandlerSeesItsTask(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	seen := make(chan *tasks.Exec, 1)
	rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		seen <- x
		return tasks.Result{Value: raw(`{}`)}, nil
	}, tasks.Policy{})
	task, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job", Params: raw(`{"a":1}`)})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	x := recv(t, seen, "the handler to start")
	if x.TaskID() != task.ID || x.Principal() != "alice" || x.Method() != "tools/call" || x.Name() != "job" ||
		string(x.Params()) != `{"a":1}` || x.Run() != 1 {
		t.Fatalf("the handler saw task %s of %s, %s %s, params %s, run %d", x.TaskID(), x.Principal(), x.Method(), x.Name(), x.Params(), x.Run())
	}
}

func TestHandlerOutlivesTheStartingRequest(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	release := make(chan struct{})
	returning(rt, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	reqCtx, endRequest := context.WithCancel(context.Background())
	task, err := rt.Start(reqCtx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	endRequest()
	close(release)
	if got := wait(t, rt, "alice", task.ID); got.Status != tasks.StatusCompleted {
		t.Fatalf("after the starting request ended the task became %s, want completed", got.Status)
	}
}

func TestStartRefusesBadRequests(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	returning(rt, "job", nil, tasks.Result{Value: raw(`{}`)}, nil)
	ctx := testCtx(t)
	if _, err := rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "nope"}); !errors.Is(err, tasks.ErrNoHandler) {
		t.Fatalf("Start of an unregistered tool: got %v, want ErrNoHandler", err)
	}
	if _, err := rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job", Params: raw(`{"a":`)}); err == nil {
		t.Fatalf("Start with params that are not JSON succeeded")
	}
	if list, _, err := rt.List(ctx, "alice", ""); err != nil || len(list) != 0 {
		t.Fatalf("refused Starts left tasks behind: %d (%v)", len(list), err)
	}
}

func TestTTLDefaultAndClamp(t *testing.T) {
	c := newCluster(t)
	clamped := c.instance("a", tasks.WithTTL(time.Hour, 24*time.Hour))
	forever := c.instance("b", tasks.WithTTL(0, 0))
	for _, rt := range []*tasks.Runtime{clamped, forever} {
		returning(rt, "job", nil, tasks.Result{Value: raw(`{}`)}, nil)
	}
	cases := []struct {
		rt        *tasks.Runtime
		requested time.Duration
		want      time.Duration
	}{
		{clamped, 0, time.Hour},
		{clamped, 2 * time.Hour, 2 * time.Hour},
		{clamped, 48 * time.Hour, 24 * time.Hour},
		{forever, 0, 0},
		{forever, 48 * time.Hour, 48 * time.Hour},
	}
	for _, tc := range cases {
		task, err := tc.rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job", TTL: tc.requested})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if task.TTL != tc.want {
			t.Errorf("asked for TTL %v, got %v, want %v", tc.requested, task.TTL, tc.want)
		}
	}
	unlimited, _ := forever.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job"})
	wait(t, forever, "alice", unlimited.ID)
	c.clock.Advance(10000 * time.Hour)
	if _, err := clamped.Get(testCtx(t), "alice", unlimited.ID); err != nil {
		t.Fatalf("a task without a TTL vanished: %v", err)
	}
}

func TestNewRejectsUnworkableOptions(t *testing.T) {
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	bad := map[string]tasks.Option{
		"heartbeat longer than half the lease": tasks.WithLease(10*time.Second, 6*time.Second),
		"empty instance ID":                    tasks.WithInstanceID(""),
		"negative limit":                       tasks.WithLimits(-1, 0),
		"zero page size":                       tasks.WithPageSize(0),
		"negative TTL":                         tasks.WithTTL(-time.Second, 0),
	}
	for name, opt := range bad {
		if rt, err := tasks.New(store, bus, opt); err == nil {
			rt.Close(context.Background())
			t.Errorf("New with %s succeeded", name)
		}
	}
	if _, err := tasks.New(nil, bus); err == nil {
		t.Errorf("New without a store succeeded")
	}
}

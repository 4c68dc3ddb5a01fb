package client_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
	"github.com/weftmcp/weft/tasks"
)

// asked is what the server's AskMiddleware saw of one question.
type asked struct {
	method, key, tool, answer string
	err                       error
}

// TestEveryAskPassesTheAskMiddleware asks the client the same question by
// each of its four ways: a legacy request's server-to-client request, a
// 2025-11-25 task's input request (delivered by tasks/result), an
// extension task's input request (tasks/get, tasks/update) and a modern
// request's input_required result. On each, the middleware sees the
// question and its answer, and the _meta it adds reaches the client's
// handler.
func TestEveryAskPassesTheAskMiddleware(t *testing.T) {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithPollInterval(10*time.Millisecond),
		tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	seen := make(chan asked, 4)
	s := server.New(mcp.Implementation{Name: "asker", Version: "1.0.0"}, &server.Options{
		Tasks: rt,
		AskMiddleware: []server.AskMiddleware{func(next server.AskHandler) server.AskHandler {
			return func(ctx context.Context, a *server.AskRequest) (jsontext.Value, error) {
				if err := a.SetMeta("example.com/asked-by", a.Request.ToolName()); err != nil {
					return nil, err
				}
				answer, err := next(ctx, a)
				seen <- asked{method: a.Method, key: a.Key, tool: a.Request.ToolName(), answer: string(answer), err: err}
				return answer, err
			}
		}},
	})
	confirm := func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "OK?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		if err != nil {
			return "", err
		}
		return string(res.Action), nil
	}
	server.AddTool(s, &mcp.Tool{Name: "confirm"}, confirm)
	server.AddTool(s, &mcp.Tool{Name: "confirm_task"}, confirm, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired}))

	for _, path := range []struct {
		name, version, tool string
		inputRequired       bool // the first pass is the round that ends in input_required
	}{
		{"legacy request", mcp.Version20251125, "confirm", false},
		{"legacy task", mcp.Version20251125, "confirm_task", false},
		{"extension task", mcp.Version20260728, "confirm_task", false},
		{"modern input_required", mcp.Version20260728, "confirm", true},
	} {
		t.Run(path.name, func(t *testing.T) {
			handled := make(chan string, 2)
			cs, _ := servertest.ConnectHTTP(t, s, &client.Options{
				ProtocolVersion: path.version,
				ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					by, _ := p.Meta.String("example.com/asked-by")
					handled <- by
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{}}, nil
				},
			}, nil)
			var opts []client.CallOption
			if path.tool == "confirm_task" {
				opts = append(opts, client.WithTask())
			}
			res, err := client.CallTool[string](context.Background(), cs, path.tool, struct{}{}, opts...)
			if err != nil || res != "accept" {
				t.Fatalf("%s: %q, %v; want accept", path.tool, res, err)
			}
			if by := <-handled; by != path.tool {
				t.Errorf("the client's handler saw _meta asked-by %q, want %q (set by the middleware)", by, path.tool)
			}
			passes := []string{`"action":"accept"`}
			if path.inputRequired {
				passes = []string{"", `"action":"accept"`} // unanswered, then answered by the retry
			}
			for i, want := range passes {
				got := <-seen
				if got.method != mcp.MethodElicitationCreate || got.key != "elicitation-1" || got.tool != path.tool || !strings.Contains(got.answer, want) || want == "" && got.answer != "" {
					t.Errorf("pass %d: the middleware saw %+v, want elicitation/create elicitation-1 of %s answered %q", i+1, got, path.tool, want)
				}
				if (want == "") != (got.err != nil) {
					t.Errorf("pass %d: the middleware saw error %v", i+1, got.err)
				}
			}
			select {
			case extra := <-seen:
				t.Errorf("the middleware saw one more question than asked: %+v", extra)
			default:
			}
		})
	}
}

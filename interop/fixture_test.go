package interop_test

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// serveEnv, when set to "stdio" in the environment of this test binary,
// makes it serve the interop fixture on stdin/stdout instead of running
// tests: the TypeScript client starts it that way for the stdio test.
const serveEnv = "WEFT_INTEROP_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "stdio" {
		logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
		rt, err := taskRuntime(logger)
		if err != nil {
			fmt.Fprintln(os.Stderr, "interop fixture server:", err)
			os.Exit(1)
		}
		if err := newInteropServer(logger, rt).Run(context.Background(), transport.Stdio()); err != nil {
			fmt.Fprintln(os.Stderr, "interop fixture server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type countdownIn struct {
	Steps int `json:"steps" jsonschema:"how many progress notifications to send"`
}

// nameForm is the form ask_name elicits: one required string.
var nameForm = &mcp.ElicitSchema{Type: "object", Required: []string{"name"},
	Properties: mcp.ElicitProperties{{Name: "name", Schema: mcp.PrimitiveSchema{Type: "string"}}}}

// newInteropServer returns the weft server the TypeScript clients drive:
// tools (typed, with progress, cancellable, asking for input), a resource, a
// template and a prompt, and task tools run on rt. The cancellations tool
// reports how many calls of wait_for_cancel have seen their context end, so
// the client can confirm on the wire that the cancellation reached the
// handler.
func newInteropServer(logger *slog.Logger, rt *tasks.Runtime) *server.Server {
	s := server.New(mcp.Implementation{Name: "weft-interop-server", Version: "1.0.0"}, &server.Options{Logger: logger, Tasks: rt})
	var cancelled atomic.Int64

	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the text back"},
		func(_ context.Context, _ *server.Request, in echoIn) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil
		})
	server.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers"},
		func(_ context.Context, _ *server.Request, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
	// countdown works a little after each step, as a real tool does. That
	// matters to the TypeScript SDK: it dispatches notifications on a later
	// microtask but settles a response at once, so progress that arrives in
	// the same stdio read as the response finds its handler already gone
	// (weft writes them in the right order; the SDK drops them).
	server.AddTool(s, &mcp.Tool{Name: "countdown", Description: "Reports progress steps times, then finishes"},
		func(ctx context.Context, r *server.Request, in countdownIn) (*mcp.CallToolResult, error) {
			for i := 1; i <= in.Steps; i++ {
				if err := r.Progress(ctx, float64(i), float64(in.Steps), "step "+strconv.Itoa(i)); err != nil {
					return nil, err
				}
				select {
				case <-ctx.Done():
					return nil, context.Cause(ctx)
				case <-time.After(20 * time.Millisecond):
				}
			}
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "done"}}}, nil
		})
	s.AddRawTool(&mcp.Tool{Name: "wait_for_cancel", Description: "Reports that it started, then waits until cancelled (at most a minute)"},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if err := r.Progress(ctx, 1, 0, "started"); err != nil {
				return nil, err
			}
			select {
			case <-ctx.Done():
				cancelled.Add(1)
				return nil, context.Cause(ctx)
			case <-time.After(time.Minute):
				return nil, fmt.Errorf("no cancellation arrived within a minute")
			}
		})
	s.AddRawTool(&mcp.Tool{Name: "cancellations", Description: "How many wait_for_cancel calls have been cancelled"},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: strconv.FormatInt(cancelled.Load(), 10)}}}, nil
		})

	// ask_name asks the user for a name: a server-to-client request in the
	// legacy era, an input_required result the client answers by retrying
	// in the modern one.
	s.AddRawTool(&mcp.Tool{Name: "ask_name", Description: "Asks the user for a name, then greets them"},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			answer, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameForm})
			if err != nil {
				return nil, err
			}
			if answer.Action != mcp.ElicitAccept {
				return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "no name given (" + string(answer.Action) + ")"}}}, nil
			}
			var name string
			if err := stdjson.Unmarshal(answer.Content["name"], &name); err != nil {
				return nil, fmt.Errorf("the form's name is not a string: %w", err)
			}
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "Hello, " + name + "!"}}}, nil
		})

	addTaskTools(s)
	addClientTaskTools(s)

	// whoami names the principal the request came from.
	s.AddRawTool(&mcp.Tool{Name: "whoami", Description: "Names the caller (the authenticated principal)"},
		func(_ context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: r.Principal()}}}, nil
		})

	// add_tool registers one more tool, which list_changed announces.
	var added atomic.Int64
	s.AddRawTool(&mcp.Tool{Name: "add_tool", Description: "Registers another tool, named added_<n>"},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			name := "added_" + strconv.FormatInt(added.Add(1), 10)
			s.AddRawTool(&mcp.Tool{Name: name, Description: "Added by add_tool"},
				func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: name}}}, nil
				})
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: name}}}, nil
		})

	s.AddResource(&mcp.Resource{URI: "interop://static/hello", Name: "hello", MIMEType: "text/plain", Description: "A static greeting"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: "hello from weft"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "interop://items/{id}", Name: "item", MIMEType: "text/plain", Description: "An item by id"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: "item " + vars["id"]}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greeting", Description: "Greets someone", Arguments: []mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}}},
		func(_ context.Context, _ *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Hello, " + args["name"] + "!"}}}}, nil
		})
	return s
}

// serveHTTP serves the interop fixture over Streamable HTTP on a loopback
// port for the duration of the test and returns the endpoint URL.
func serveHTTP(t *testing.T) string {
	return serveFixture(t, nil)
}

// serveProtectedHTTP serves the interop fixture as serveHTTP does, behind an
// OAuth resource server whose tokens come from as; dpop, when not nil,
// makes it take DPoP-bound tokens.
func serveProtectedHTTP(t *testing.T, as *authtest.Server, dpop *auth.DPoPConfig) string {
	return serveFixture(t, func(resource string) (func(http.Handler) http.Handler, error) {
		verifier, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.URL, Audience: resource, Algorithms: []string{"ES256"}})
		if err != nil {
			return nil, err
		}
		rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{as.URL}, Verifier: verifier, DPoP: dpop})
		if err != nil {
			return nil, err
		}
		return rs.Handler, nil
	})
}

// serveFixture serves the interop fixture over Streamable HTTP at /mcp on a
// loopback port, wrapped by what protect makes for the endpoint's URL
// (nothing when protect is nil), until the test ends; it returns the URL.
func serveFixture(t *testing.T, protect func(resource string) (func(http.Handler) http.Handler, error)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	logger := slog.New(slog.NewTextHandler(logTo(t, "weft server: "), nil))
	rt := newTaskRuntime(t, logger)
	h := streamable.NewHandler(newInteropServer(logger, rt), &streamable.HandlerOptions{Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	var root http.Handler = mux
	if protect != nil {
		wrap, err := protect(url)
		if err != nil {
			t.Fatal(err)
		}
		root = wrap(mux)
	}
	hs := &http.Server{Handler: root, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		hs.Shutdown(ctx)
		if err := rt.Close(ctx); err != nil {
			t.Errorf("closing the task runtime: %v", err)
		}
	})
	return url
}

// taskPollInterval is the poll interval the fixture's tasks suggest.
const taskPollInterval = 50 * time.Millisecond

// taskRuntime returns the fixture's in-memory task runtime.
func taskRuntime(logger *slog.Logger) (*tasks.Runtime, error) {
	return tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithLogger(logger), tasks.WithPollInterval(taskPollInterval))
}

// newTaskRuntime returns the fixture's task runtime for one test.
func newTaskRuntime(t *testing.T, logger *slog.Logger) *tasks.Runtime {
	t.Helper()
	rt, err := taskRuntime(logger)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// addTaskTools registers the tools that may run as tasks: slow_echo works a
// little, then echoes; task_ask_name asks for a name from inside its task;
// task_wait runs until its task is cancelled (at most a minute).
func addTaskTools(s *server.Server) {
	optional := server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional})
	server.AddTool(s, &mcp.Tool{Name: "slow_echo", Description: "Echoes the text back after a moment; may run as a task"},
		func(ctx context.Context, _ *server.Request, in echoIn) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			case <-time.After(2 * taskPollInterval):
			}
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil
		}, optional)
	s.AddRawTool(&mcp.Tool{Name: "task_ask_name", Description: "Asks the user for a name, then greets them; may run as a task"},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			answer, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameForm})
			if err != nil {
				return nil, err
			}
			var name string
			if err := stdjson.Unmarshal(answer.Content["name"], &name); err != nil {
				return nil, fmt.Errorf("the form's name is not a string: %w", err)
			}
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "Hello, " + name + "!"}}}, nil
		}, optional)
	s.AddRawTool(&mcp.Tool{Name: "task_wait", Description: "Runs until cancelled (at most a minute); may run as a task"},
		func(ctx context.Context, _ *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			case <-time.After(time.Minute):
				return nil, fmt.Errorf("no cancellation arrived within a minute")
			}
		}, optional)
}

// addClientTaskTools registers the tools that have the client run tasks
// (client-hosted tasks, 2025-11-25): each sends its request as a task,
// waits for the client's task and reports what became of it.
func addClientTaskTools(s *server.Server) {
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: t}}}
	}
	s.AddRawTool(&mcp.Tool{Name: "elicit_as_task", Description: "Asks the user for a name through a task the client runs"},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			ct, err := r.Session().ElicitAsTask(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameForm}, time.Minute)
			if err != nil {
				return nil, err
			}
			final, err := ct.Wait(ctx)
			if err != nil {
				return nil, err
			}
			answer, err := ct.Result(ctx)
			if err != nil {
				return nil, err
			}
			var name string
			if err := stdjson.Unmarshal(answer.Content["name"], &name); err != nil {
				return nil, fmt.Errorf("the form's name is not a string: %w", err)
			}
			return text(fmt.Sprintf("Hello, %s! (client task %s, %s)", name, ct.ID(), final.Status)), nil
		})
	s.AddRawTool(&mcp.Tool{Name: "sample_as_task", Description: "Asks the client's model through a task the client runs"},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			ct, err := r.Session().SampleAsTask(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Say hi"}}}}}, time.Minute)
			if err != nil {
				return nil, err
			}
			answer, err := ct.Result(ctx)
			if err != nil {
				return nil, err
			}
			var said string
			if len(answer.Content) == 1 {
				if tc, ok := answer.Content[0].(*mcp.TextContent); ok {
					said = tc.Text
				}
			}
			return text(fmt.Sprintf("%s said %q", answer.Model, said)), nil
		})
	s.AddRawTool(&mcp.Tool{Name: "cancel_client_task", Description: "Starts an elicitation task on the client and cancels it"},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			ct, err := r.Session().ElicitAsTask(ctx, &mcp.ElicitParams{Message: "Wait for me", RequestedSchema: nameForm}, time.Minute)
			if err != nil {
				return nil, err
			}
			if _, err := ct.Cancel(ctx); err != nil {
				return nil, err
			}
			final, err := ct.Wait(ctx)
			if err != nil {
				return nil, err
			}
			listed, _, err := r.Session().ListClientTasks(ctx, "")
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s; the client lists %d tasks", final.Status, len(listed))), nil
		})
}

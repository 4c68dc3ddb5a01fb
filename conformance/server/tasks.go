package main

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// The fixtures of the tasks extension scenarios (SEP-2663, tasks-*), served
// by a task runtime on the in-memory store. Whether a call becomes a task
// is the library's decision, by each tool's task configuration; the tools
// are ordinary handlers.

// newTaskRuntime returns the in-memory task runtime the fixture server
// runs its tasks on. It lives as long as the process.
func newTaskRuntime(logger *slog.Logger) *tasks.Runtime {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithLogger(logger))
	if err != nil {
		panic("conformance server: the task runtime: " + err.Error())
	}
	return rt
}

// confirmSchema asks for one boolean, confirm.
var confirmSchema = &mcp.ElicitSchema{Type: "object", Required: []string{"confirm"}, Properties: mcp.ElicitProperties{
	{Name: "confirm", Schema: mcp.PrimitiveSchema{Type: "boolean", Description: "Confirm?"}},
}}

// confirmed reports whether an elicitation answer accepted with confirm
// true.
func confirmed(r *mcp.ElicitResult) bool {
	return r.Action == mcp.ElicitAccept && string(r.Content["confirm"]) == "true"
}

// addTaskTools registers greet, slow_compute, failing_job,
// protocol_error_job, confirm_delete, multi_input and test_tool_with_task.
func addTaskTools(s *server.Server) {
	// greet never runs as a task, whatever the request carries (a legacy
	// task param included).
	server.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone; always answers at once"},
		func(_ context.Context, _ *server.Request, in struct {
			Name string `json:"name" jsonschema:"who to greet"`
		}) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})

	// slow_compute runs inline for up to 250 ms: {seconds: 0} answers at
	// once, anything longer becomes a task for the same execution, which a
	// tasks/cancel stops.
	server.AddTool(s, &mcp.Tool{Name: "slow_compute", Description: "Computes for the given number of seconds; long computations become tasks"},
		func(ctx context.Context, r *server.Request, in struct {
			Seconds float64 `json:"seconds" jsonschema:"how long to compute, in seconds"`
			Label   string  `json:"label,omitempty" jsonschema:"a label echoed in the result"`
		}) (string, error) {
			if in.Seconds < 0 {
				return "", fmt.Errorf("seconds must not be negative, got %v", in.Seconds)
			}
			r.Progress(ctx, 0, in.Seconds, "computing "+in.Label)
			if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return "", err
			}
			return fmt.Sprintf("Computed %q in %s seconds", in.Label, strconv.FormatFloat(in.Seconds, 'g', -1, 64)), nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional, PromoteAfter: 250 * time.Millisecond}))

	// failing_job must run as a task and ends as a tool error after a
	// second: completed with result.isError in the extension.
	s.AddRawTool(&mcp.Tool{Name: "failing_job", Description: "A job that always fails as a tool (isError) after about a second", InputSchema: noArgs},
		func(ctx context.Context, _ *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "The job failed: the simulated upstream service is unavailable"}}, IsError: true}, nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired}))

	// protocol_error_job fails with a JSON-RPC error: the task ends failed
	// with it inlined.
	s.AddRawTool(&mcp.Tool{Name: "protocol_error_job", Description: "A job that fails with a JSON-RPC (protocol) error", InputSchema: noArgs},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "protocol_error_job failed on purpose: a simulated internal error")
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))

	// confirm_delete asks for confirmation inside its task.
	server.AddTool(s, &mcp.Tool{Name: "confirm_delete", Description: "Deletes a file after asking the user to confirm"},
		func(ctx context.Context, r *server.Request, in struct {
			Filename string `json:"filename" jsonschema:"the file to delete"`
		}) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Delete " + in.Filename + "?", RequestedSchema: confirmSchema})
			if err != nil {
				return "", err
			}
			if !confirmed(res) {
				return "Kept " + in.Filename, nil
			}
			return "Deleted " + in.Filename, nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))

	// multi_input asks two questions at once inside its task.
	s.AddRawTool(&mcp.Tool{Name: "multi_input", Description: "Asks for a name and a confirmation at the same time", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			name := server.AskElicit("name", &mcp.ElicitParams{Message: "Your name?", RequestedSchema: form("name", "string")})
			confirm := server.AskElicit("confirm", &mcp.ElicitParams{Message: "Proceed?", RequestedSchema: confirmSchema})
			if err := r.AskAll(ctx, name, confirm); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("name=%s, confirmed=%v", textField(name.Result, "name"), confirmed(confirm.Result))), nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))

	// test_tool_with_task gathers a name by multi round-trip rounds, then
	// works for half a second: the rounds resolve inline, and the work
	// becomes a task at its 100 ms deadline.
	s.AddRawTool(&mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name, then greets in a task", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			name := server.AskElicit("user_name", &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: form("name", "string")})
			if err := r.AskAll(ctx, name); err != nil {
				return nil, err
			}
			if err := sleep(ctx, 500*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Hello, " + textField(name.Result, "name") + "! (greeted in a task)"), nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired, PromoteAfter: 100 * time.Millisecond}))
}

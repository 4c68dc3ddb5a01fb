package proxy

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// syncTools offers every tool of the wrapped server, each of which may run
// as a task, and withdraws those it no longer lists.
func (p *Proxy) syncTools(ctx context.Context) error {
	listed := map[string]bool{}
	for t, err := range p.wrapped.Tools(ctx) {
		if err != nil {
			return fmt.Errorf("listing the wrapped server's tools: %w", err)
		}
		listed[t.Name] = true
		p.addTool(t)
	}
	p.withdraw(&p.toolNames, listed, p.srv.RemoveTools)
	return nil
}

// addTool offers one wrapped tool. Its task support becomes optional
// (required stays required): the proxy can run any call as a task.
func (p *Proxy) addTool(t *mcp.Tool) {
	tool := *t
	required := t.TaskSupport() == mcp.TaskSupportRequired
	if !required {
		tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	}
	h := p.callTool(t.Name, required)
	defer func() {
		// The weft server compiles the input schema to validate arguments;
		// a schema it cannot compile is left to the wrapped server to check.
		if r := recover(); r != nil {
			p.logger.Warn("proxy: the wrapped tool's input schema is not usable here; its arguments go unchecked to the wrapped server", "tool", t.Name, "problem", r)
			tool.InputSchema = nil
			p.srv.AddRawTool(&tool, h)
		}
	}()
	p.srv.AddRawTool(&tool, h)
}

// cancelTimeout bounds cancelling a wrapped task whose call ended.
const cancelTimeout = 5 * time.Second

// callTool returns the handler that calls the wrapped tool name, passing
// progress back and stopping the wrapped call when the call's context
// ends. A tool the wrapped server runs only as a task (asTask) is called
// as one, and its task is cancelled when the call's context ends.
func (p *Proxy) callTool(name string, asTask bool) server.RawToolHandler {
	return func(ctx context.Context, req *server.Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
		ctx, done := p.calls.enter(ctx, req)
		defer done()
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		progress := client.WithProgress(func(n *mcp.ProgressNotificationParams) {
			req.Progress(ctx, n.Progress, n.Total, n.Message) // a client that did not ask for progress gets none
		})
		if !asTask {
			return p.wrapped.CallTool(ctx, params, progress)
		}
		h, err := p.wrapped.CallToolAsTask(ctx, params, progress)
		if err != nil {
			return nil, err
		}
		res, err := h.Wait(ctx)
		if ctx.Err() != nil && h.ID() != "" {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
			defer cancel()
			if cerr := h.Cancel(cctx); cerr != nil {
				p.logger.Warn("proxy: cancelling the wrapped server's task failed", "tool", name, "task", h.ID(), "error", cerr)
			}
		}
		return res, err
	}
}

package client

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
)

// notInVersion is the error of a method the session's version lacks.
func notInVersion(s *Session, method, instead string) error {
	return fmt.Errorf("client: %s: %w %s; %s", method, ErrNotInVersion, s.ProtocolVersion(), instead)
}

// ListTools returns one page of the server's tools (tools/list); params may
// be nil for the first page. Tools iterates over every page.
func (s *Session) ListTools(ctx context.Context, params *mcp.ListToolsParams, opts ...CallOption) (*mcp.ListToolsResult, error) {
	var res mcp.ListToolsResult
	if err := call(ctx, s, mcp.MethodToolsList, params, &res, opts); err != nil {
		return nil, err
	}
	res.Tools = s.usableTools(res.Tools)
	s.tools.record(res.Tools)
	return &res, nil
}

// CallTool calls a tool (tools/call). A tool's own failure is a result with
// IsError set, not an error. On a modern session, input the server asks for
// is answered with the Options handlers and the call retried until it
// completes.
//
// With WithTask the call may run as a task, which CallTool waits for (see
// TaskHandle.Wait); when ctx ends first, the task is cancelled
// (tasks/cancel), as an ordinary call is abandoned. Without it, a
// 2025-11-25 tool the session has listed whose execution.taskSupport is
// "required" runs as a task too, since the server refuses a plain call of
// it.
func (s *Session) CallTool(ctx context.Context, params *mcp.CallToolParams, opts ...CallOption) (*mcp.CallToolResult, error) {
	var cfg callConfig
	for _, o := range opts {
		o(&cfg)
	}
	asTask, err := s.runsAsTask(ctx, params, cfg.taskWait)
	if err != nil {
		return nil, err
	}
	if asTask {
		h, err := s.startToolTask(ctx, params, opts)
		if err != nil {
			return nil, err
		}
		// The handle goes with the call: however Wait ends, the call's
		// progress handler hears nothing after CallTool returns.
		defer h.done()
		res, err := h.Wait(ctx)
		if err != nil && ctx.Err() != nil {
			s.abandonedTask(h)
		}
		return res, err
	}
	var res mcp.CallToolResult
	if err := callWithInput(ctx, s, mcp.MethodToolsCall, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListResources returns one page of the server's resources (resources/list);
// params may be nil for the first page. Resources iterates over every page.
func (s *Session) ListResources(ctx context.Context, params *mcp.ListResourcesParams, opts ...CallOption) (*mcp.ListResourcesResult, error) {
	var res mcp.ListResourcesResult
	if err := call(ctx, s, mcp.MethodResourcesList, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListResourceTemplates returns one page of the server's resource templates
// (resources/templates/list); params may be nil for the first page.
// ResourceTemplates iterates over every page.
func (s *Session) ListResourceTemplates(ctx context.Context, params *mcp.ListResourceTemplatesParams, opts ...CallOption) (*mcp.ListResourceTemplatesResult, error) {
	var res mcp.ListResourceTemplatesResult
	if err := call(ctx, s, mcp.MethodResourcesTemplatesList, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// ReadResource reads a resource (resources/read). A missing resource is a
// *jsonrpc.Error for which mcp.IsResourceNotFound reports true. Input a
// modern server asks for is answered as for CallTool.
func (s *Session) ReadResource(ctx context.Context, params *mcp.ReadResourceParams, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	var res mcp.ReadResourceResult
	if err := callWithInput(ctx, s, mcp.MethodResourcesRead, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks a legacy server for notifications/resources/updated about a
// resource (resources/subscribe); they reach Options.OnResourceUpdated.
// Modern sessions subscribe with Listen.
func (s *Session) Subscribe(ctx context.Context, params *mcp.SubscribeParams, opts ...CallOption) error {
	if s.modern() {
		return notInVersion(s, mcp.MethodResourcesSubscribe, "use Listen with ResourceSubscriptions")
	}
	return call(ctx, s, mcp.MethodResourcesSubscribe, params, &mcp.EmptyResult{}, opts)
}

// Unsubscribe ends a legacy resource subscription (resources/unsubscribe).
// Modern sessions close the Subscription instead.
func (s *Session) Unsubscribe(ctx context.Context, params *mcp.UnsubscribeParams, opts ...CallOption) error {
	if s.modern() {
		return notInVersion(s, mcp.MethodResourcesUnsubscribe, "close the Subscription that Listen returned")
	}
	return call(ctx, s, mcp.MethodResourcesUnsubscribe, params, &mcp.EmptyResult{}, opts)
}

// ListPrompts returns one page of the server's prompts (prompts/list);
// params may be nil for the first page. Prompts iterates over every page.
func (s *Session) ListPrompts(ctx context.Context, params *mcp.ListPromptsParams, opts ...CallOption) (*mcp.ListPromptsResult, error) {
	var res mcp.ListPromptsResult
	if err := call(ctx, s, mcp.MethodPromptsList, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// GetPrompt renders a prompt (prompts/get). Input a modern server asks for
// is answered as for CallTool.
func (s *Session) GetPrompt(ctx context.Context, params *mcp.GetPromptParams, opts ...CallOption) (*mcp.GetPromptResult, error) {
	var res mcp.GetPromptResult
	if err := callWithInput(ctx, s, mcp.MethodPromptsGet, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of a prompt or resource template argument
// (completion/complete).
func (s *Session) Complete(ctx context.Context, params *mcp.CompleteParams, opts ...CallOption) (*mcp.CompleteResult, error) {
	var res mcp.CompleteResult
	if err := call(ctx, s, mcp.MethodCompletionComplete, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// SetLoggingLevel sets the minimum level of the log messages the server
// sends to Options.OnLog. A legacy session sends logging/setLevel; a modern
// one, which has no such method, puts the level in the _meta of every later
// request instead (WithLogLevel still overrides it per call).
func (s *Session) SetLoggingLevel(ctx context.Context, level mcp.LoggingLevel, opts ...CallOption) error {
	if !level.Valid() {
		return fmt.Errorf("client: %s: %q is not a logging level; use one of debug, info, notice, warning, error, critical, alert, emergency",
			mcp.MethodLoggingSetLevel, level)
	}
	if s.modern() {
		s.logLevel.Store(&level)
		return nil
	}
	return call(ctx, s, mcp.MethodLoggingSetLevel, &mcp.SetLevelParams{Level: level}, &mcp.EmptyResult{}, opts)
}

// Ping checks that a legacy server is responsive (ping). Modern sessions
// have no ping; Discover is the cheapest round trip there.
func (s *Session) Ping(ctx context.Context, opts ...CallOption) error {
	if s.modern() {
		return notInVersion(s, mcp.MethodPing, "use Discover")
	}
	return call(ctx, s, mcp.MethodPing, &mcp.PingParams{}, &mcp.EmptyResult{}, opts)
}

// Discover asks a modern server again what it speaks and offers
// (server/discover) and updates ServerInfo, ServerCapabilities and
// Instructions from the answer. Legacy servers learned all of it at
// initialize.
func (s *Session) Discover(ctx context.Context, opts ...CallOption) (*mcp.DiscoverResult, error) {
	if !s.modern() {
		return nil, notInVersion(s, mcp.MethodServerDiscover, "the initialize result already gave ServerInfo, ServerCapabilities and Instructions")
	}
	var res mcp.DiscoverResult
	if err := call(ctx, s, mcp.MethodServerDiscover, &mcp.DiscoverParams{}, &res, opts); err != nil {
		return nil, err
	}
	st := *s.settled()
	st.serverInfo, _ = res.Meta.ServerInfo() // a should: absent leaves it empty
	st.capabilities, st.instructions = res.Capabilities, res.Instructions
	s.state.Store(&st)
	return &res, nil
}

// NotifyRootsListChanged tells a legacy server that the roots changed
// (notifications/roots/list_changed), so it asks ListRoots again. Modern
// servers ask for roots on every request that needs them.
func (s *Session) NotifyRootsListChanged(ctx context.Context) error {
	if s.modern() {
		return notInVersion(s, mcp.NotificationRootsListChanged, "modern servers ask for roots with each request")
	}
	return s.notify(ctx, mcp.NotificationRootsListChanged, &mcp.RootsListChangedNotificationParams{})
}

package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// RawToolHandler handles tools/call for a tool registered with AddRawTool: it
// gets the arguments object raw (nil when the client sent none), already
// validated against the tool's input schema.
type RawToolHandler func(ctx context.Context, req *Request, args stdjson.RawMessage) (*mcp.CallToolResult, error)

// ToolOption configures a tool at registration.
type ToolOption func(*serverTool)

// RequireClientCapabilities declares capabilities the client must have
// declared for the tool to run (for example sampling, for a tool that asks the
// client's model). A modern request without them gets -32021 listing them; a
// legacy session without them gets a tool error saying which are missing.
func RequireClientCapabilities(c mcp.ClientCapabilities) ToolOption {
	return func(t *serverTool) { t.required = &c }
}

// serverTool is a registered tool.
type serverTool struct {
	tool         mcp.Tool
	input        *compiledSchema
	objectOutput bool // the output schema describes a JSON object
	required     *mcp.ClientCapabilities
	task         *TaskConfig // how calls run as tasks; set at registration
	closesStream bool        // its handler may call Request.CloseSSEStream (ClosesSSEStream)
	handler      RawToolHandler
}

// AddTool registers a tool whose arguments are an In and whose result is an
// Out, replacing any tool of the same name (it keeps its place in the list).
//
// The input schema is derived from In once, here, unless t.InputSchema is
// set: then it is sent to clients byte for byte as given. Either way the
// arguments are validated against it before h runs (and must then decode
// into an In). Arguments that fail are answered with a message naming the
// argument and what is wrong: from 2025-11-25 on as a tool error the model
// sees (isError, SEP-1303), before that as -32602, as each version's spec
// says. The output schema is derived
// from Out unless t.OutputSchema is set, or Out is an interface (such as any)
// or *mcp.CallToolResult.
//
// h's Out becomes the tool result: encoded as structuredContent (when there
// is an output schema) and as text content (a string as itself, anything
// else as its JSON text); an *mcp.CallToolResult is sent as it is. An error from h becomes a result with isError set and the error's
// text, so the model sees it, except a *jsonrpc.Error, which is sent as the
// protocol error it is, and ErrInputRequired (see Request.AskAll).
//
// AddTool panics when the tool has no name or a schema is unusable: those are
// programming errors.
func AddTool[In, Out any](s *Server, t *mcp.Tool, h func(ctx context.Context, req *Request, in In) (Out, error), opts ...ToolOption) {
	tool := *t
	inType, outType := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	if tool.InputSchema == nil {
		raw, err := inferSchema(inType)
		if err != nil {
			panic(fmt.Sprintf("server: AddTool %q: cannot derive the input schema from %s: %v", t.Name, inType, err))
		}
		if raw == nil {
			raw = objectSchema
		}
		tool.InputSchema = raw
	}
	passthrough := outType == reflect.TypeFor[*mcp.CallToolResult]()
	if tool.OutputSchema == nil && !passthrough {
		raw, err := inferSchema(outType)
		if err != nil {
			panic(fmt.Sprintf("server: AddTool %q: cannot derive the output schema from %s: %v", t.Name, outType, err))
		}
		tool.OutputSchema = raw
	}
	structured := tool.OutputSchema != nil
	s.addTool(&tool, func(ctx context.Context, req *Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
		var in In
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return rejectArguments(req.version, tool.Name, err)
			}
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if passthrough {
			return any(out).(*mcp.CallToolResult), nil
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("the tool's result of type %T cannot be encoded as JSON: %w", out, err)
		}
		text := string(raw)
		if jsontext.Value(raw).Kind() == '"' {
			json.Unmarshal(raw, &text) // a string result reads better unquoted
		}
		res := &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: text}}}
		if structured {
			res.StructuredContent = raw
		}
		return res, nil
	}, opts)
}

// AddRawTool registers a tool whose handler takes the arguments raw and
// returns the result itself, replacing any tool of the same name. Without
// t.InputSchema the tool accepts any arguments object. Errors are handled as
// for AddTool; it panics when the tool has no name or a schema is unusable.
func (s *Server) AddRawTool(t *mcp.Tool, h RawToolHandler, opts ...ToolOption) {
	tool := *t
	if tool.InputSchema == nil {
		tool.InputSchema = objectSchema
	}
	s.addTool(&tool, h, opts)
}

// addTool compiles the input schema and registers the tool.
func (s *Server) addTool(t *mcp.Tool, h RawToolHandler, opts []ToolOption) {
	if t.Name == "" {
		panic("server: a tool needs a name")
	}
	if !schemaIsObject(t.InputSchema) {
		panic(fmt.Sprintf("server: tool %q: the input schema's root must have \"type\": \"object\"", t.Name))
	}
	input, err := compileSchema(t.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("server: tool %q: input schema: %v", t.Name, err))
	}
	st := &serverTool{tool: *t, input: input, handler: h}
	if t.OutputSchema != nil {
		if !jsontext.Value(t.OutputSchema).IsValid() {
			panic(fmt.Sprintf("server: tool %q: the output schema is not valid JSON", t.Name))
		}
		st.objectOutput = schemaIsObject(t.OutputSchema)
	}
	for _, o := range opts {
		o(st)
	}
	s.setUpTasks(st)
	s.tools.put(t.Name, st)
	s.hub.listChanged(featureTools)
}

// RemoveTools removes the named tools; names not registered are ignored.
func (s *Server) RemoveTools(names ...string) {
	if s.tools.remove(names...) {
		s.hub.listChanged(featureTools)
	}
}

// listTools answers tools/list, in registration order, a page at a time.
func (s *Server) listTools(ctx context.Context, r *Request, p *mcp.ListToolsParams) (result, error) {
	after, err := s.decodeCursor(mcp.MethodToolsList, p.Cursor)
	if err != nil {
		return nil, err
	}
	tools, last, more := s.tools.pageVisible(after, s.pageSize, s.visibleTools(ctx, r))
	res := &mcp.ListToolsResult{Tools: make([]mcp.Tool, len(tools))}
	for i, t := range tools {
		res.Tools[i] = toolForVersion(t, r.version)
	}
	if more {
		res.NextCursor = s.encodeCursor(mcp.MethodToolsList, last)
	}
	if r.modern {
		res.Cache = s.listCache(s.opts.Visibility.Tool != nil)
	}
	return res, nil
}

// toolForVersion returns the tool as a client of version v may see it: the
// members v does not define are dropped.
func toolForVersion(t *serverTool, v string) mcp.Tool {
	tool := t.tool
	if !mcp.SupportsToolAnnotations(v) {
		tool.Annotations = nil
	}
	if !mcp.SupportsTitles(v) {
		tool.Title, tool.Meta = "", nil
	}
	if !mcp.SupportsStructuredContent(v) || (!t.objectOutput && !mcp.SupportsAnyStructuredContent(v)) {
		tool.OutputSchema = nil
	}
	if !mcp.SupportsIcons(v) {
		tool.Icons = nil
	}
	if !mcp.SupportsTasksV1(v) {
		tool.Execution = nil
	}
	return tool
}

// callTool answers tools/call: inline, or as a task when the tool supports
// tasks and the era's rules say so (see TaskConfig).
func (s *Server) callTool(ctx context.Context, r *Request, p *mcp.CallToolParams) (result, error) {
	t, ok := s.tools.getVisible(p.Name, s.visibleTools(ctx, r))
	if !ok {
		return nil, invalidParams("unknown tool %q; tools/list names the tools this server offers", p.Name)
	}
	if k := jsontext.Value(p.Arguments).Kind(); len(p.Arguments) > 0 && k != '{' {
		// Not an input validation error but a request outside the
		// CallToolRequest schema: a protocol error in every version.
		return nil, invalidParams("tools/call params.arguments must be a JSON object, not a JSON %s", jsonkind.Name(k))
	}
	if r.modern && t.required != nil && !r.caps.Covers(*t.required) {
		return nil, mcp.MissingCapabilityError(*t.required)
	}
	plan, err := s.planTool(ctx, r, t, p)
	if err != nil {
		return nil, err
	}
	// A legacy task's arguments are checked by its run (runToolTask): the
	// client asked for a task, so invalid arguments are the task's outcome.
	if plan != planLegacyTask {
		if err := t.input.validate(p.Arguments); err != nil {
			res, err := rejectArguments(r.version, p.Name, err)
			if err != nil {
				return nil, err
			}
			return res, nil
		}
	}
	switch plan {
	case planLegacyTask:
		return s.startLegacyTask(ctx, r, t, p)
	case planExtensionTask:
		return s.startExtensionTask(ctx, r, t, p)
	case planPromote:
		return s.promote(ctx, r, t, p)
	}
	res, err := s.invokeTool(ctx, r, t, p.Arguments)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ToolInputSchema returns the inputSchema of the registered tool with the
// name, as clients see it in tools/list. It is what streamable.Handler
// checks the Mcp-Param-* headers of a tools/call against.
func (s *Server) ToolInputSchema(_ context.Context, name string) (stdjson.RawMessage, bool) {
	t, ok := s.tools.get(name)
	if !ok {
		return nil, false
	}
	return t.tool.InputSchema, true
}

// invokeTool runs the tool's handler for r and finishes its result for the
// request's version. A handler's plain error becomes a tool error result,
// unless the exchange carrying the request refuses it (see
// Request.refuse); a *jsonrpc.Error and ErrInputRequired are returned as
// errors. A legacy
// client without the tool's required capabilities gets a tool error saying
// which are missing (a modern one got -32021 before).
func (s *Server) invokeTool(ctx context.Context, r *Request, t *serverTool, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
	name := t.tool.Name
	if !r.modern && t.required != nil && !r.caps.Covers(*t.required) {
		return toolError(fmt.Sprintf("tool %q needs the client capability %s, which the client did not declare in initialize",
			name, capabilityText(*t.required))), nil
	}
	res, err := t.handler(ctx, r, args)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) || errors.Is(err, ErrInputRequired) || r.refuse(err) {
			return nil, err
		}
		return toolError(err.Error()), nil
	}
	if res == nil {
		return nil, fmt.Errorf("the handler of tool %q returned neither a result nor an error", name)
	}
	out := *res // the handler's value may be shared: finish a copy
	out.Result = mcp.Result{Meta: res.Meta}
	if !mcp.SupportsStructuredContent(r.version) ||
		(!mcp.SupportsAnyStructuredContent(r.version) && jsontext.Value(out.StructuredContent).Kind() != '{') {
		out.StructuredContent = nil
	}
	if out.Content == nil {
		out.Content = mcp.Contents{}
	}
	out.Content = contentsForVersion(out.Content, r.version)
	return &out, nil
}

// rejectArguments answers a call of the tool whose arguments are invalid
// (why says how) as version v's tools page says: a tool execution error the
// model can act on from 2025-11-25 on (SEP-1303), -32602 before.
func rejectArguments(v, tool string, why error) (*mcp.CallToolResult, error) {
	msg := fmt.Sprintf("invalid arguments for tool %q: %v", tool, why)
	if mcp.InvalidArgumentsAreToolErrors(v) {
		return toolError(msg), nil
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%s", msg)
}

// toolError is the result of a tool that failed: the model sees the text.
func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: text}}, IsError: true}
}

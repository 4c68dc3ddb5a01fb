package server

import (
	"context"
	"fmt"
	"slices"

	"github.com/weftmcp/weft/mcp"
)

// PromptHandler renders a prompt for prompts/get from its arguments, which
// hold every required argument the prompt declares.
type PromptHandler func(ctx context.Context, req *Request, args map[string]string) (*mcp.GetPromptResult, error)

// serverPrompt is a registered prompt.
type serverPrompt struct {
	prompt  mcp.Prompt
	handler PromptHandler
}

// AddPrompt registers a prompt, replacing any prompt of the same name (it
// keeps its place in the list). A prompts/get that lacks an argument the
// prompt declares as required is answered with -32602 before h runs. An error
// from h is sent as a protocol error: a *jsonrpc.Error as it is, anything
// else as -32603 with its text (ErrInputRequired excepted; see
// Request.AskAll). AddPrompt panics when the prompt has no name.
func (s *Server) AddPrompt(p *mcp.Prompt, h PromptHandler) {
	if p.Name == "" {
		panic("server: a prompt needs a name")
	}
	s.prompts.put(p.Name, &serverPrompt{prompt: *p, handler: h})
	s.hub.listChanged(featurePrompts)
}

// RemovePrompts removes the named prompts; names not registered are ignored.
func (s *Server) RemovePrompts(names ...string) {
	if s.prompts.remove(names...) {
		s.hub.listChanged(featurePrompts)
	}
}

// listPrompts answers prompts/list, in registration order, a page at a time.
func (s *Server) listPrompts(ctx context.Context, r *Request, p *mcp.ListPromptsParams) (result, error) {
	after, err := s.decodeCursor(mcp.MethodPromptsList, p.Cursor)
	if err != nil {
		return nil, err
	}
	prompts, last, more := s.prompts.pageVisible(after, s.pageSize, s.visiblePrompts(ctx, r))
	res := &mcp.ListPromptsResult{Prompts: make([]mcp.Prompt, len(prompts))}
	for i, sp := range prompts {
		res.Prompts[i] = promptForVersion(sp.prompt, r.version)
	}
	if more {
		res.NextCursor = s.encodeCursor(mcp.MethodPromptsList, last)
	}
	if r.modern {
		res.Cache = s.listCache(s.opts.Visibility.Prompt != nil)
	}
	return res, nil
}

// promptForVersion returns the prompt as a client of version v may see it.
func promptForVersion(p mcp.Prompt, v string) mcp.Prompt {
	if !mcp.SupportsTitles(v) {
		p.Title, p.Meta = "", nil
		if slices.ContainsFunc(p.Arguments, func(a mcp.PromptArgument) bool { return a.Title != "" }) {
			args := slices.Clone(p.Arguments)
			for i := range args {
				args[i].Title = ""
			}
			p.Arguments = args
		}
	}
	if !mcp.SupportsIcons(v) {
		p.Icons = nil
	}
	return p
}

// getPrompt answers prompts/get.
func (s *Server) getPrompt(ctx context.Context, r *Request, p *mcp.GetPromptParams) (result, error) {
	sp, ok := s.prompts.getVisible(p.Name, s.visiblePrompts(ctx, r))
	if !ok {
		return nil, invalidParams("unknown prompt %q; prompts/list names the prompts this server offers", p.Name)
	}
	for _, a := range sp.prompt.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, invalidParams("prompt %q needs the argument %q, which is missing", p.Name, a.Name)
		}
	}
	args := p.Arguments
	if args == nil {
		args = map[string]string{}
	}
	res, err := sp.handler(ctx, r, args)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("the handler of prompt %q returned neither a result nor an error", p.Name)
	}
	out := *res // the handler's value may be shared: finish a copy
	out.Result = mcp.Result{Meta: res.Meta}
	if out.Messages == nil {
		out.Messages = []mcp.PromptMessage{}
	}
	cloned := false
	for i, m := range out.Messages {
		if c := contentForVersion(m.Content, r.version); c != m.Content {
			if !cloned {
				out.Messages, cloned = slices.Clone(out.Messages), true // the handler's slice may be shared
			}
			out.Messages[i].Content = c
		}
	}
	return &out, nil
}

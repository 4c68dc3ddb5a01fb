package server

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
)

// CompletionHandler suggests values for an argument of a prompt or a
// resource template (completion/complete).
type CompletionHandler func(ctx context.Context, req *Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error)

// SetCompletionHandler sets the handler of completion/complete; nil restores
// the default, which suggests nothing ({values: [], total: 0, hasMore:
// false}). Of more than 100 values a handler returns, the client gets the
// first 100 with hasMore true (and total, when the handler gave none, the
// number it returned).
func (s *Server) SetCompletionHandler(h CompletionHandler) {
	if h == nil {
		s.completion.Store(nil)
		return
	}
	s.completion.Store(&h)
}

// complete answers completion/complete.
func (s *Server) complete(ctx context.Context, r *Request, p *mcp.CompleteParams) (result, error) {
	switch {
	case p.Ref.Type != mcp.ReferencePrompt && p.Ref.Type != mcp.ReferenceResource:
		return nil, invalidParams("ref.type %q is not %q or %q", p.Ref.Type, mcp.ReferencePrompt, mcp.ReferenceResource)
	case p.Ref.Type == mcp.ReferencePrompt && p.Ref.Name == "":
		return nil, invalidParams("a %q ref needs the name of the prompt whose argument is completed", mcp.ReferencePrompt)
	case p.Ref.Type == mcp.ReferenceResource && p.Ref.URI == "":
		return nil, invalidParams("a %q ref needs the uri (or uri template) whose variable is completed", mcp.ReferenceResource)
	case p.Argument.Name == "":
		return nil, invalidParams("completion/complete needs argument.name, the argument (or template variable) to complete")
	}
	h := s.completion.Load()
	if h == nil {
		var total int64
		var more bool
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}, Total: &total, HasMore: &more}}, nil
	}
	res, err := (*h)(ctx, r, p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("the completion handler returned neither a result nor an error")
	}
	out := mcp.CompleteResult{Result: mcp.Result{Meta: res.Meta}, Completion: res.Completion}
	if out.Completion.Values == nil {
		out.Completion.Values = []string{}
	}
	if n := len(out.Completion.Values); n > maxCompletionValues {
		// The spec allows at most 100 values: send the first ones and say
		// that there are more (and how many, unless the handler said).
		out.Completion.Values = out.Completion.Values[:maxCompletionValues:maxCompletionValues]
		more := true
		out.Completion.HasMore = &more
		if out.Completion.Total == nil {
			total := int64(n)
			out.Completion.Total = &total
		}
	}
	return &out, nil
}

// maxCompletionValues is how many values a completion result may hold.
const maxCompletionValues = 100

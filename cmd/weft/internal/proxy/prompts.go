package proxy

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// syncPrompts offers the wrapped server's prompts and withdraws those it
// no longer lists.
func (p *Proxy) syncPrompts(ctx context.Context) error {
	listed := map[string]bool{}
	for pr, err := range p.wrapped.Prompts(ctx) {
		if err != nil {
			return fmt.Errorf("listing the wrapped server's prompts: %w", err)
		}
		listed[pr.Name] = true
		name := pr.Name
		p.srv.AddPrompt(pr, func(ctx context.Context, req *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			ctx, done := p.calls.enter(ctx, req)
			defer done()
			return p.wrapped.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		})
	}
	p.withdraw(&p.promptNames, listed, p.srv.RemovePrompts)
	return nil
}

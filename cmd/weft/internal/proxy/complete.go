package proxy

import (
	"context"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// offersCompletion reports whether the wrapped server completes arguments:
// it declares the completions capability, or speaks 2024-11-05, whose
// servers offered completion/complete without declaring it.
func (p *Proxy) offersCompletion() bool {
	return p.wrapped.ServerCapabilities().Completions != nil || !mcp.SupportsCompletionsCapability(p.wrapped.ProtocolVersion())
}

// complete asks the wrapped server to complete an argument of one of its
// prompts or resource templates (completion/complete).
func (p *Proxy) complete(ctx context.Context, _ *server.Request, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return p.wrapped.Complete(ctx, &mcp.CompleteParams{Ref: params.Ref, Argument: params.Argument, Context: params.Context})
}

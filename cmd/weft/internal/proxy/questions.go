package proxy

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// elicit asks the wrapped server's elicitation of the client whose call it
// belongs to.
func (p *Proxy) elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	req, err := p.asker(ctx, "elicitation")
	if err != nil {
		return nil, err
	}
	return req.Elicit(ctx, params)
}

// sample asks the client for an LLM sample on the wrapped server's behalf.
func (p *Proxy) sample(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	req, err := p.asker(ctx, "sampling")
	if err != nil {
		return nil, err
	}
	return req.Sample(ctx, params)
}

// asker finds the client request to put a question to.
func (p *Proxy) asker(ctx context.Context, what string) (*server.Request, error) {
	if req := p.calls.upstream(ctx); req != nil {
		return req, nil
	}
	return nil, fmt.Errorf("weft proxy: the %s request cannot be passed on: it arrived outside a call, or while several calls were in flight, so which client should answer is unknown", what)
}

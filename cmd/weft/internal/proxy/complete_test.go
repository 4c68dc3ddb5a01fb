package proxy

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// A client completing a proxied prompt's argument gets the wrapped
// server's suggestions. (The proxy answered completion/complete itself,
// with no suggestions, whatever the wrapped server would have said.)
func TestCompletionIsAnsweredByTheWrappedServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wrapped := server.New(mcp.Implementation{Name: "completer", Version: "1"}, &server.Options{Logger: slog.New(slog.DiscardHandler)})
	wrapped.AddPrompt(&mcp.Prompt{Name: "review", Arguments: []mcp.PromptArgument{{Name: "language"}}},
		func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	wrapped.SetCompletionHandler(func(_ context.Context, _ *server.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{p.Argument.Value + "thon"}}}, nil
	})
	c := newChain(t, ctx, wrapped, client.Options{})
	res, err := c.client.Complete(ctx, &mcp.CompleteParams{
		Ref:      mcp.Reference{Type: mcp.ReferencePrompt, Name: "review"},
		Argument: mcp.CompleteArgument{Name: "language", Value: "py"},
	})
	if err != nil {
		t.Fatalf("completion/complete through the proxy: %v", err)
	}
	if want := []string{"python"}; !slices.Equal(res.Completion.Values, want) {
		t.Errorf("the proxy suggested %q, want the wrapped server's %q", res.Completion.Values, want)
	}
}

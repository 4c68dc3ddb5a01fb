package client_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
)

// askedKey is the context key ServeMiddleware hands the elicitation handler
// a value under.
type askedKey struct{}

// TestAskAndServeMiddlewareCarryMetaFromServerToClient checks the two ends
// of a server-to-client request over Streamable HTTP: the server's
// AskMiddleware adds to the elicitation's _meta and sees the answer, the
// client's ServeMiddleware sees the request with that _meta and passes a
// value in ctx to the handler, and answering in next's place is the answer.
func TestAskAndServeMiddlewareCarryMetaFromServerToClient(t *testing.T) {
	var mu sync.Mutex
	var answered, served []string // what the middleware saw; guarded by mu
	var refuse atomic.Bool
	s := server.New(mcp.Implementation{Name: "asker", Version: "1.0.0"}, &server.Options{
		AskMiddleware: []server.AskMiddleware{func(next server.AskHandler) server.AskHandler {
			return func(ctx context.Context, a *server.AskRequest) (jsontext.Value, error) {
				if err := a.SetMeta("example.com/asked-by", a.Request.ToolName()); err != nil {
					return nil, err
				}
				answer, err := next(ctx, a)
				mu.Lock()
				answered = append(answered, a.Method+" "+string(answer))
				mu.Unlock()
				return answer, err
			}
		}},
	})
	server.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "OK?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		if err != nil {
			return "", err
		}
		return string(res.Action), nil
	})

	cs, _ := servertest.ConnectHTTP(t, s, &client.Options{
		ProtocolVersion: mcp.Version20251125,
		ServeMiddleware: []client.ServeMiddleware{func(next client.ServeHandler) client.ServeHandler {
			return func(ctx context.Context, sess *client.Session, req *jsonrpc.Request) (any, error) {
				if req.IsNotification() {
					return next(ctx, sess, req)
				}
				var p mcp.RequestParams
				if err := json.Unmarshal(req.Params, &p); err != nil {
					return nil, err
				}
				by, _ := p.Meta.String("example.com/asked-by")
				mu.Lock()
				served = append(served, req.Method+" asked by "+by+" in "+sess.ProtocolVersion())
				mu.Unlock()
				if refuse.Load() {
					return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "refused by middleware")
				}
				return next(context.WithValue(ctx, askedKey{}, by), sess, req)
			}
		}},
		ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if by, _ := ctx.Value(askedKey{}).(string); by != "ask" {
				return nil, errors.New("the handler's ctx lacks what the middleware put in it")
			}
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{}}, nil
		},
	}, nil)
	ctx := context.Background()

	res, err := client.CallTool[string](ctx, cs, "ask", struct{}{})
	if err != nil || res != "accept" {
		t.Fatalf("ask: %q, %v; want accept", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(served) != 1 || served[0] != "elicitation/create asked by ask in 2025-11-25" {
		t.Errorf("the client's serve middleware saw %q, want one elicitation/create carrying the _meta the server's middleware set", served)
	}
	if len(answered) != 1 || answered[0] != `elicitation/create {"action":"accept"}` {
		t.Errorf("the server's ask middleware saw answers %q", answered)
	}

	refuse.Store(true)
	mu.Unlock()
	_, err = client.CallTool[string](ctx, cs, "ask", struct{}{})
	mu.Lock()
	if err == nil {
		t.Error("the call succeeded although the client's serve middleware refused the elicitation")
	}
	if len(served) != 2 {
		t.Errorf("the client's serve middleware saw %d requests, want 2", len(served))
	}
}

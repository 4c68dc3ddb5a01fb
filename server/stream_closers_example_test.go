package server_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

// A tool that ends the HTTP response carrying its call before it answers,
// as a server polling its clients does (SEP-1699), is added with
// ClosesSSEStream; the client resumes the stream and gets the answer.
// Calls of other tools run on their POST's own goroutine, where
// CloseSSEStream reports false.
func ExampleClosesSSEStream() {
	s := server.New(mcp.Implementation{Name: "poller", Version: "1.0.0"}, nil)
	closeThenAnswer := func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		return fmt.Sprintf("closed its stream: %v", r.CloseSSEStream()), nil
	}
	server.AddTool(s, &mcp.Tool{Name: "poll", Description: "Answers on a resumed stream"}, closeThenAnswer, server.ClosesSSEStream())
	server.AddTool(s, &mcp.Tool{Name: "plain", Description: "Answers on its POST"}, closeThenAnswer)

	h := streamable.NewHandler(s, &streamable.HandlerOptions{RetryInterval: 10 * time.Millisecond})
	defer h.Shutdown(context.Background())
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	c := client.New(mcp.Implementation{Name: "client", Version: "1.0.0"}, &client.Options{ProtocolVersion: mcp.Version20251125})
	session, err := c.Connect(ctx, streamable.NewClient(ts.URL, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for _, tool := range []string{"poll", "plain"} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: []byte(`{}`)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tool+":", res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// poll: closed its stream: true
	// plain: closed its stream: false
}

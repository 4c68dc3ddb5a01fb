package websocket_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
	"github.com/weftmcp/weft/transport/websocket"
)

type greetIn struct {
	Name string `json:"name"`
}

// Serving: the Streamable HTTP endpoint takes WebSocket connections too,
// so one /mcp serves HTTP and WebSocket clients (the TypeScript SDK's
// WebSocketClientTransport among them). A WebSocket connection is a full
// session, here a legacy one (initialize) from a client pinned to
// 2025-11-25.
func ExampleNewHandler() {
	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
		return "Hello, " + in.Name + "!", nil
	})
	// Or websocket.NewHandler(s, nil) to serve WebSocket alone.
	h := streamable.NewHandler(s, &streamable.HandlerOptions{
		WebSocket: websocket.ConnOptions{KeepAlive: 30 * time.Second, PongTimeout: 10 * time.Second},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux) // in production: http.ListenAndServe("127.0.0.1:8080", mux)
	defer ts.Close()
	defer h.Shutdown(context.Background())

	ctx := context.Background()
	stream, err := websocket.Dial(ctx, "ws"+ts.URL[len("http"):]+"/mcp", nil)
	if err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"},
		&client.Options{ProtocolVersion: mcp.Version20251125}).Connect(ctx, stream)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Grace"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
	// Output: 2025-11-25 Hello, Grace!
}

// Connecting: Dial opens a WebSocket to a ws:// or wss:// URL, and the
// client runs a session over it in whichever era the server speaks.
func ExampleDial() {
	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
		return "Hello, " + in.Name + "!", nil
	})
	h := streamable.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background())
	url := "ws" + ts.URL[len("http"):] // ws://127.0.0.1:PORT

	ctx := context.Background()
	stream, err := websocket.Dial(ctx, url, nil) // an access token goes in DialOptions.Header
	if err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, stream)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Ada"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(session.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
	// Output: 2026-07-28 Hello, Ada!
}

package streamable_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/streamable"
)

// One endpoint for every protocol version: legacy sessions and modern
// stateless requests alike, at /mcp, served with the timeouts of
// NewHTTPServer.
func ExampleNewHandler() {
	s := server.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	// register tools, resources and prompts on s
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable.NewHandler(s, nil))
	hs := streamable.NewHTTPServer(mux, nil)
	hs.Addr = "127.0.0.1:8080"
	log.Fatal(hs.ListenAndServe())
}

// A server whose browser-based client is served from
// https://app.example.com: pages of that origin (and of the local machine)
// may call it; a page of any other origin gets 403, whatever address the
// server listens on.
func ExampleNewHTTPServer() {
	s := server.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	h := streamable.NewHandler(s, &streamable.HandlerOptions{
		Origins: sse.OriginPolicy{AllowedOrigins: []string{"https://app.example.com"}},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := streamable.NewHTTPServer(mux, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go hs.Serve(ln)
	defer func() {
		h.Shutdown(context.Background())
		hs.Shutdown(context.Background())
	}()

	for _, origin := range []string{"https://app.example.com", "https://elsewhere.example"} {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(origin, resp.Status)
	}
	// Output:
	// https://app.example.com 200 OK
	// https://elsewhere.example 403 Forbidden
}

package streamable_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport/streamable"
)

// Two instances sharing a session store: a legacy session initialized on
// one is served by the other, and DELETE on either ends it on both. Across
// processes, use a store of taskstore/sqlite, redis or postgres
// (Store.Sessions), and give every instance the store's key
// (server.Options.StateKey from Store.StateKey).
func ExampleHandlerOptions_sessions() {
	store := sessions.NewMemoryStore()
	start := func() (string, func()) {
		s := server.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
		h := streamable.NewHandler(s, &streamable.HandlerOptions{Sessions: store})
		hs := httptest.NewServer(h)
		return hs.URL, func() { h.Shutdown(context.Background()); hs.Close() }
	}
	a, stopA := start()
	defer stopA()
	b, stopB := start()
	defer stopB()

	send := func(method, url, sid, body string) *http.Response {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	init := send("POST", a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := init.Header.Get("Mcp-Session-Id")
	fmt.Println("ping on B:", send("POST", b, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`).StatusCode)
	fmt.Println("DELETE on B:", send("DELETE", b, sid, "").StatusCode)
	fmt.Println("ping on A:", send("POST", a, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`).StatusCode)
	// Output:
	// ping on B: 200
	// DELETE on B: 204
	// ping on A: 404
}

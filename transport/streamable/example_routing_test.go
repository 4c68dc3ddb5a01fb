package streamable_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// Two instances that share sessions and route their messages: the
// client's GET stream is on B, and a notification the server on A sends
// the session reaches it there. Across processes, use the message log and
// bus of a store in taskstore/sqlite, redis or postgres (Store.Messages,
// and the Bus opened beside the Store).
func ExampleHandlerOptions_messages() {
	opts := &streamable.HandlerOptions{Sessions: sessions.NewMemoryStore(), Messages: sessions.NewMemoryMessageLog(), Bus: tasks.NewMemoryBus()}
	start := func() (*server.Server, string, func()) {
		s := server.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
		s.AddResource(&mcp.Resource{URI: "note://1", Name: "note"}, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		h := streamable.NewHandler(s, opts)
		hs := httptest.NewServer(h)
		return s, hs.URL, func() { h.Shutdown(context.Background()); hs.Close() }
	}
	srvA, a, stopA := start()
	defer stopA()
	_, b, stopB := start()
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
		return resp
	}
	init := send("POST", a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	init.Body.Close()
	sid := init.Header.Get("Mcp-Session-Id")
	send("POST", a, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	send("POST", a, sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"note://1"}}`).Body.Close()

	get := send("GET", b, sid, "")
	defer get.Body.Close()
	srvA.ResourceUpdated(context.Background(), "note://1")
	sc := bufio.NewScanner(get.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
			fmt.Println("on B's GET stream:", data)
			break
		}
	}
	// Output:
	// on B's GET stream: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"note://1"}}
}

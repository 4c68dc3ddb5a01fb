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

// Three instances that route their sessions' messages form a cluster:
// the client initializes and subscribes through B and keeps its GET
// stream on C, and the server on A, which never served the session,
// tells it that the resource changed (found in the session store's index
// of subscriptions) and, by adding a resource, that the resource list
// changed (announced on the bus to every instance; C tells the sessions
// whose streams it holds).
func ExampleClusterMember() {
	opts := &streamable.HandlerOptions{Sessions: sessions.NewMemoryStore(), Messages: sessions.NewMemoryMessageLog(), Bus: tasks.NewMemoryBus()}
	start := func() (*server.Server, string, func()) {
		s := server.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
		s.AddResource(&mcp.Resource{URI: "note://1", Name: "note"}, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		h := streamable.NewHandler(s, opts) // joins s to the cluster
		hs := httptest.NewServer(h)
		return s, hs.URL, func() { h.Shutdown(context.Background()); hs.Close() }
	}
	srvA, _, stopA := start()
	defer stopA()
	_, b, stopB := start()
	defer stopB()
	_, c, stopC := start()
	defer stopC()

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
	init := send("POST", b, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	init.Body.Close()
	sid := init.Header.Get("Mcp-Session-Id")
	send("POST", b, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	send("POST", b, sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"note://1"}}`).Body.Close()

	get := send("GET", c, sid, "")
	defer get.Body.Close()
	events := bufio.NewScanner(get.Body)
	next := func() string {
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok && data != "" {
				return data
			}
		}
		return ""
	}
	if err := srvA.ResourceUpdated(context.Background(), "note://1"); err != nil {
		log.Fatal(err)
	}
	fmt.Println("on C's GET stream:", next())
	srvA.AddResource(&mcp.Resource{URI: "note://2", Name: "another note"}, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	fmt.Println("on C's GET stream:", next())
	// Output:
	// on C's GET stream: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"note://1"}}
	// on C's GET stream: {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}
}

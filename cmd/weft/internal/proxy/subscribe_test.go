package proxy

import (
	"context"
	stdjson "encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// A client subscribed to a proxied resource is told when the wrapped
// server says it changed: the proxy subscribes to it on the wrapped
// server (a modern one here, on one listen stream for every URI) and
// passes the notification on. (It did neither: the proxy
// accepted resources/subscribe and the client never heard of a change.)
func TestWrappedResourceUpdateReachesTheSubscribedClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const uri = "file:///watched.txt"
	wrapped := server.New(mcp.Implementation{Name: "watched", Version: "1"}, &server.Options{Logger: slog.New(slog.DiscardHandler)})
	wrapped.AddResource(&mcp.Resource{URI: uri, Name: "watched"}, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{&mcp.TextResourceContents{URI: uri, Text: "now"}}}, nil
	})
	updated := make(chan string, 8)
	c := newChain(t, ctx, wrapped, client.Options{OnResourceUpdated: func(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) {
		updated <- p.URI
	}})
	for _, u := range []string{uri, "file:///other.txt"} { // the second must not end the first
		if err := c.client.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
			t.Fatalf("subscribing to %s through the proxy: %v", u, err)
		}
	}
	if err := wrapped.ResourceUpdated(ctx, uri); err != nil {
		t.Fatalf("ResourceUpdated: %v", err)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("the client was told %q changed, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatalf("the client subscribed to %s through the proxy was never told it changed", uri)
	}
}

// A legacy wrapped server (the usual stdio server) is subscribed to with
// resources/subscribe, once however many clients subscribe, and its
// notifications/resources/updated reach the subscribed client.
func TestLegacyWrappedResourceUpdateReachesTheSubscribedClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const uri = "file:///watched.txt"
	subscribed := make(chan string, 8)
	proxyEnd, wrappedEnd := transport.Pipe()
	wrapped := jsonrpc.NewConn(wrappedEnd, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodInitialize:
			return stdjson.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"legacy","version":"1"}}`), nil
		case mcp.MethodResourcesList:
			return stdjson.RawMessage(`{"resources":[{"uri":"` + uri + `","name":"watched"}]}`), nil
		case mcp.MethodResourcesTemplatesList:
			return stdjson.RawMessage(`{"resourceTemplates":[]}`), nil
		case mcp.MethodResourcesSubscribe:
			var p mcp.SubscribeParams
			if err := stdjson.Unmarshal(req.Params, &p); err != nil {
				return nil, err
			}
			subscribed <- p.URI
			return stdjson.RawMessage(`{}`), nil
		case mcp.NotificationInitialized:
			return nil, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "the scripted server does not serve %s", req.Method)
	})})
	defer wrapped.Close()
	p := connectProxy(t, ctx, proxyEnd)

	updated := make(chan string, 8)
	var clients []*client.Session
	for range 2 {
		clientEnd, serverEnd := transport.Pipe()
		ss, err := p.Server().Connect(ctx, serverEnd, nil)
		if err != nil {
			t.Fatalf("serving the proxy: %v", err)
		}
		defer ss.Close()
		cs, err := client.New(mcp.Implementation{Name: "downstream", Version: "1"}, &client.Options{Logger: slog.New(slog.DiscardHandler), ProtocolVersion: mcp.LatestLegacyVersion,
			OnResourceUpdated: func(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) { updated <- p.URI }}).Connect(ctx, clientEnd)
		if err != nil {
			t.Fatalf("connecting to the proxy: %v", err)
		}
		defer cs.Close()
		clients = append(clients, cs)
	}
	for _, cs := range clients {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribing through the proxy: %v", err)
		}
	}
	select {
	case got := <-subscribed:
		if got != uri {
			t.Fatalf("the proxy subscribed to %q on the wrapped server, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatalf("the proxy never subscribed to %s on the wrapped server", uri)
	}
	if len(subscribed) != 0 {
		t.Errorf("the proxy subscribed on the wrapped server once per client, want once")
	}
	if err := wrapped.Notify(ctx, mcp.NotificationResourcesUpdated, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		t.Fatalf("notifying the proxy: %v", err)
	}
	for i := range clients {
		select {
		case got := <-updated:
			if got != uri {
				t.Errorf("a client was told %q changed, want %q", got, uri)
			}
		case <-ctx.Done():
			t.Fatalf("%d of the %d subscribed clients were told the resource changed", i, len(clients))
		}
	}
}

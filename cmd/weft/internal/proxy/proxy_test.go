package proxy

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// A wrapped server may announce a list change before it answers
// initialize: the reference server does, as it starts. The resync that
// starts must wait for Connect, whose own sync reads the lists, and then
// run on the Proxy Connect returned. (It ran at once, on a Proxy with no
// wrapped session yet, and the proxy crashed: seen in TestEverything/proxy
// on a busy machine.)
func TestListChangeAnnouncedDuringConnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clientEnd, serverEnd := transport.Pipe()
	lists := make(chan struct{}, 8)
	var wrapped *jsonrpc.Conn
	wrapped = jsonrpc.NewConn(serverEnd, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodInitialize:
			if err := wrapped.Notify(ctx, mcp.NotificationToolsListChanged, nil); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"announcer","version":"1"}}`), nil
		case mcp.MethodToolsList:
			lists <- struct{}{}
			return json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`), nil
		case mcp.NotificationInitialized:
			return nil, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "the scripted server does not serve %s", req.Method)
	})})
	defer wrapped.Close()

	p := connectProxy(t, ctx, clientEnd)
	for i, by := range []string{"Connect's sync", "the resync the announcement started"} {
		select {
		case <-lists:
		case <-ctx.Done():
			t.Fatalf("tools/list %d (by %s) never came: %d of 2 came", i+1, by, i)
		}
	}
	p.syncMu.Lock() // once the resync has finished
	defer p.syncMu.Unlock()
	if !p.toolNames["echo"] {
		t.Errorf("the proxy does not offer the wrapped server's tool: it offers %v", p.toolNames)
	}
}

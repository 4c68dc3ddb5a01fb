package client

import (
	stdjson "encoding/json"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// A 2025-03-26 server may send batches, and the client answers them with a
// batch; other versions refuse a batch with a single -32600.
func TestServerBatchesOnlyIn20250326(t *testing.T) {
	for _, v := range []string{mcp.Version20250326, mcp.Version20250618} {
		t.Run(v, func(t *testing.T) {
			clientEnd, srv := transport.Pipe()
			defer srv.Close()
			connected := make(chan error, 1)
			go func() {
				s, err := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: v}).Connect(testCtx(t), clientEnd)
				if err == nil {
					t.Cleanup(func() { s.Close() })
				}
				connected <- err
			}()
			ctx := testCtx(t)
			read := func() jsonrpc.Message {
				t.Helper()
				msg, err := srv.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return msg
			}
			init := read().(*jsonrpc.Request)
			srv.Write(ctx, &jsonrpc.Response{ID: init.ID, Result: stdjson.RawMessage(
				`{"protocolVersion":"` + v + `","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)})
			if n := read().(*jsonrpc.Request); n.Method != mcp.NotificationInitialized {
				t.Fatalf("got %s, want notifications/initialized", n.Method)
			}
			if err := <-connected; err != nil {
				t.Fatal(err)
			}
			srv.Write(ctx, jsonrpc.Batch{
				&jsonrpc.Request{ID: jsonrpc.StringID("a"), Method: mcp.MethodPing},
				&jsonrpc.Request{ID: jsonrpc.StringID("b"), Method: mcp.MethodPing},
			})
			reply := read()
			if !mcp.AllowsBatch(v) {
				r, ok := reply.(*jsonrpc.Response)
				if !ok || r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
					t.Fatalf("a batch at %s got %#v, want one -32600", v, reply)
				}
				return
			}
			b, ok := reply.(jsonrpc.Batch)
			if !ok || len(b) != 2 {
				t.Fatalf("a batch of two pings got %#v, want a batch of two responses", reply)
			}
			for _, m := range b {
				if r := m.(*jsonrpc.Response); r.Error != nil || string(r.Result) != `{}` {
					t.Errorf("ping in a batch answered %+v", r)
				}
			}
		})
	}
}

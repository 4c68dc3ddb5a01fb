package jsonrpc_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

type echoParams struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type echoResult struct {
	Content []map[string]string `json:"content"`
}

// benchPair returns a client and a server Conn over a Pipe; the server
// answers every call with a small tool-call-like result.
func benchPair(b *testing.B) *jsonrpc.Conn {
	sc, ss := transport.Pipe()
	result := echoResult{Content: []map[string]string{{"type": "text", "text": "hello"}}}
	server := jsonrpc.NewConn(ss, jsonrpc.ConnOptions{Logger: quiet, Handler: jsonrpc.HandlerFunc(
		func(ctx context.Context, req *jsonrpc.Request) (any, error) { return result, nil })})
	client := jsonrpc.NewConn(sc, jsonrpc.ConnOptions{Logger: quiet})
	b.Cleanup(func() {
		client.Close()
		server.Close()
		<-client.Done()
		<-server.Done()
	})
	return client
}

// BenchmarkRoundTrip measures one call and its response through two Conns
// and the real codec, one call at a time.
func BenchmarkRoundTrip(b *testing.B) {
	client := benchPair(b)
	ctx := context.Background()
	params := echoParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	b.ReportAllocs()
	for b.Loop() {
		var res echoResult
		if err := client.Call(ctx, "tools/call", params, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripParallel measures many calls in flight at once.
func BenchmarkRoundTripParallel(b *testing.B) {
	client := benchPair(b)
	ctx := context.Background()
	params := echoParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var res echoResult
			if err := client.Call(ctx, "tools/call", params, &res); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

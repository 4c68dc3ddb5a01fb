package jsonrpc_test

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// A handler about to make a round trip that is usually brief, to a cache
// here, calls MayWait first. Over stdio, a client that sends one request
// at a time keeps the whole exchange on the connection's reading
// goroutine; a client with other requests in flight has them read and
// served while the handler waits.
func ExampleMayWait() {
	cache := map[string]string{"colour": "blue"}
	var mu sync.Mutex
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		jsonrpc.MayWait(ctx)
		mu.Lock() // stands for the cache's round trip
		defer mu.Unlock()
		return cache["colour"], nil
	})
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	server := jsonrpc.NewConn(transport.NewStdio(toServerR, toClientW), jsonrpc.ConnOptions{Handler: handler})
	client := jsonrpc.NewConn(transport.NewStdio(toClientR, toServerW), jsonrpc.ConnOptions{})
	defer server.Close()
	defer client.Close()

	var value string
	if err := client.Call(context.Background(), "get", nil, &value); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(value)
	// Output: blue
}

package jsonrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// A handler about to wait for something slow, a database here, calls
// WillWait first: the connection then reads and serves its other requests
// meanwhile instead of waiting a millisecond or two to notice.
func ExampleWillWait() {
	lookup := func(ctx context.Context, key string) (string, error) {
		select {
		case <-time.After(5 * time.Millisecond): // stands for a query's round trip
			return "value of " + key, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p struct{ Key string }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "the params are not {\"key\": string}: %v", err)
		}
		jsonrpc.WillWait(ctx)
		return lookup(ctx, p.Key)
	})
	a, b := transport.Pipe()
	server := jsonrpc.NewConn(a, jsonrpc.ConnOptions{Handler: handler})
	client := jsonrpc.NewConn(b, jsonrpc.ConnOptions{})
	defer server.Close()
	defer client.Close()

	var value string
	if err := client.Call(context.Background(), "get", map[string]string{"key": "colour"}, &value); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(value)
	// Output: value of colour
}

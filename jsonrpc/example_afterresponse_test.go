package jsonrpc_test

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// A handler that answers with a receipt for work it has yet to do leaves
// the work to run after the answer, on its own goroutine: the work costs no
// hand-off to another goroutine, and holds no handler slot while it runs.
func ExampleAfterResponse() {
	done := make(chan string, 1)
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		work := func() { done <- "the work after the answer ran" }
		if !jsonrpc.AfterResponse(ctx, work) {
			go work() // not a handler this connection serves on its own goroutine
		}
		return "accepted", nil
	})
	a, b := transport.Pipe()
	server := jsonrpc.NewConn(a, jsonrpc.ConnOptions{Handler: handler})
	client := jsonrpc.NewConn(b, jsonrpc.ConnOptions{})
	defer server.Close()
	defer client.Close()

	var receipt string
	if err := client.Call(context.Background(), "submit", nil, &receipt); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(receipt)
	fmt.Println(<-done)
	// Output:
	// accepted
	// the work after the answer ran
}

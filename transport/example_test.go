package transport_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// writeCalls prints each Write it is given, to show how messages reach the
// writer.
type writeCalls struct{ n int }

func (w *writeCalls) Write(p []byte) (int, error) {
	w.n++
	fmt.Printf("write %d:\n%s", w.n, p)
	return len(p), nil
}

// A notification given to WriteSoon waits for the next message written and
// goes first, in the same write: over stdio, one system call for both.
func ExampleStdioStream_WriteSoon() {
	ctx := context.Background()
	s := transport.NewStdio(strings.NewReader(""), &writeCalls{})
	defer s.Close()
	note := &jsonrpc.Request{Method: "notifications/progress", Params: []byte(`{"progressToken":1,"progress":1}`)}
	if err := s.WriteSoon(ctx, note); err != nil {
		fmt.Println(err)
	}
	if err := s.Write(ctx, &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`{}`)}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// write 1:
	// {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}
	// {"jsonrpc":"2.0","id":1,"result":{}}
}

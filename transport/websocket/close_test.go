package websocket_test

import (
	"context"
	"testing"

	ws "github.com/coder/websocket"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/websocket"
)

// connServer serves each connection with a bare jsonrpc.Conn answering
// every request with "pong", and hands the Conn to the test.
type connServer struct{ conns chan *jsonrpc.Conn }

// ConnectSession serves one connection.
func (s connServer) ConnectSession(_ context.Context, stream jsonrpc.Stream, _ transport.SessionInfo) error {
	s.conns <- jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
		return "pong", nil
	})})
	return nil
}

// A connection the server closes while it waits for the next message ends
// with a close frame holding 1000 (normal closure), not by being dropped
// (which the peer sees as 1006, abnormal closure).
func TestConnectionClosedWhileReadingEndsWithNormalClosure(t *testing.T) {
	srv := connServer{conns: make(chan *jsonrpc.Conn, 1)}
	url := serve(t, websocket.NewHandler(srv, nil))
	for round := range 50 {
		conn, _, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{Subprotocols: []string{websocket.Subprotocol}})
		if err != nil {
			t.Fatal(err)
		}
		served := <-srv.conns
		// Once the answer has come, the server's connection waits for the
		// next message.
		if err := conn.Write(ctxFor(t), ws.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := conn.Read(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
		closed := make(chan error, 1)
		go func() {
			_, _, err := conn.Read(ctxFor(t))
			closed <- err
		}()
		served.Close()
		err = <-closed
		conn.CloseNow()
		if got := ws.CloseStatus(err); got != ws.StatusNormalClosure {
			t.Fatalf("round %d: the connection ended with %v (status %d); want a close frame with 1000", round, err, got)
		}
	}
}

package streamable

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
)

// A legacy request the caller cancels has its POST stream closed once
// notifications/cancelled is sent, even against a server that would never
// end the stream: before, the stream and its connection stayed open for as
// long as the server kept it.
func TestClientClosesACancelledLegacyRequestsStream(t *testing.T) {
	started, closed := make(chan struct{}), make(chan struct{})
	ts := httptest.NewServer(&legacyMock{
		get: func(w http.ResponseWriter, r *http.Request) {
			startSSE(w)
			<-r.Context().Done()
		},
		call: func(w http.ResponseWriter, r *http.Request, _ jsontext.Value) {
			startSSE(w)
			close(started)
			<-r.Context().Done() // never answers, never ends the stream
			close(closed)
		},
	})
	t.Cleanup(ts.Close)
	var p *peer
	p = dial(t, ts.URL, nil, jsonrpc.ConnOptions{OnCallAbandoned: func(id jsonrpc.ID, method string, _ error) {
		p.conn.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id})
	}})
	if err := within(t, "notifications/initialized returns", p.handshake(t)); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.callTool(ctx, map[string]any{"name": "block"})
		done <- err
	}()
	within(t, "the server has the call", started)
	cancel()
	if err := within(t, "the cancelled call returns", done); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
	within(t, "the client closes the call's stream", closed)
}

package sse

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// stalledServer keeps each session's stream without reading it, as a
// server whose read loop waits on a write to a stalled event stream.
type stalledServer struct{ streams chan jsonrpc.Stream }

func (s *stalledServer) ConnectSession(_ context.Context, stream jsonrpc.Stream, _ transport.SessionInfo) error {
	s.streams <- stream
	return nil
}

// While the server reads none of a session's messages, POSTs beyond
// maxUnread are refused with 503 and Retry-After instead of piling up in
// memory; once the server reads again, the session takes messages again.
func TestServerBoundsTheMessagesItHasNotRead(t *testing.T) {
	srv := &stalledServer{streams: make(chan jsonrpc.Stream, 1)}
	_, url := start(t, srv, nil)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev, err := NewReader(resp.Body, 0).Next()
	if err != nil || ev.Name != "endpoint" {
		t.Fatalf("first event %+v, %v; want the endpoint", ev, err)
	}
	stream := <-srv.streams
	endpoint := strings.TrimSuffix(url, "/sse") + string(ev.Data)
	post := func() *http.Response {
		t.Helper()
		r, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/progress"}`))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	for i := range maxUnread {
		if r := post(); r.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %d: HTTP %d, want 202", i+1, r.StatusCode)
		}
	}
	r := post()
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Fatalf("POST beyond the unread bound: HTTP %d (Retry-After %q), want 503 with Retry-After", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if _, err := stream.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := post(); r.StatusCode != http.StatusAccepted {
		t.Errorf("POST after the server read one: HTTP %d, want 202", r.StatusCode)
	}
}

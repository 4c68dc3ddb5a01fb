package sse

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestHeartbeatPingsAfterAQuietPeriod(t *testing.T) {
	pinged := make(chan struct{}, 1)
	h := NewHeartbeat(time.Millisecond, func() { pinged <- struct{}{} })
	h.Beat()
	select {
	case <-pinged:
	case <-time.After(5 * time.Second):
		t.Fatal("no ping within 5s of a 1ms period")
	}
	h.Stop()
}

func TestHeartbeatWithoutAPeriodHasNoTimer(t *testing.T) {
	var zero Heartbeat
	zero.Beat()
	off := NewHeartbeat(-1, func() { t.Error("a disabled heartbeat pinged") })
	off.Beat()
	if zero.timer != nil || off.timer != nil {
		t.Error("a heartbeat with no period armed a timer")
	}
	zero.Stop()
	off.Stop()
}

// A quiet 2024-11-05 event stream gets a comment line after KeepAlive,
// which clients ignore (the client Reader skips it) and proxies see as
// traffic.
func TestQuietEventStreamGetsKeepAliveComments(t *testing.T) {
	_, url := start(t, &echoServer{}, &HandlerOptions{KeepAlive: 20 * time.Millisecond})
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	timeout := time.AfterFunc(5*time.Second, func() { resp.Body.Close() })
	defer timeout.Stop()
	var before []string
	comments := 0
	for sc := bufio.NewScanner(resp.Body); comments < 2 && sc.Scan(); {
		if sc.Text() == ": keep-alive" {
			comments++
		} else {
			before = append(before, sc.Text())
		}
	}
	if comments < 2 {
		t.Fatalf("fewer than two keep-alive comments within 5s; the stream carried %q", before)
	}
	if len(before) == 0 || before[0] != "event: endpoint" {
		t.Errorf("the stream carried %q besides the comments, want the endpoint event first", before)
	}
}

func TestReaderSkipsComments(t *testing.T) {
	r := NewReader(strings.NewReader(": keep-alive\n\ndata: x\n\n: keep-alive\n\n"), 0)
	ev, err := r.Next()
	if err != nil || string(ev.Data) != "x" {
		t.Fatalf("Next = %+v %q, %v; want the one event", ev, ev.Data, err)
	}
}

// A client that stops reading its event stream does not hold the server
// up: once a write has waited WriteTimeout, writes to it fail at once.
func TestAStalledReaderDoesNotHoldTheServer(t *testing.T) {
	srv := &echoServer{}
	_, rawURL := start(t, srv, &HandlerOptions{WriteTimeout: 100 * time.Millisecond})
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", u.Path, u.Host)
	deadline := time.Now().Add(10 * time.Second)
	for { // until the server has connected the session
		srv.mu.Lock()
		n := len(srv.conns)
		srv.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session never connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
	big := map[string]any{"padding": strings.Repeat("x", 64<<10)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 400 { // 25 MiB, far more than the socket buffers hold
			if srv.conn(0).Notify(context.Background(), "notifications/message", big) != nil {
				return // the stalled client's stream failed: sending goes on elsewhere
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("sending to a client that stopped reading hung")
	}
}

package sse

import (
	"bufio"
	"net/http"
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

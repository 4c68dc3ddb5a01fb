package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftmcp/weft/transport"
)

// parentWatches returns how many parent contexts the hub watches.
func parentWatches(s *Server) int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.parents)
}

// waitEnded waits for ss to end.
func waitEnded(t *testing.T, ss *Session) {
	t.Helper()
	select {
	case <-ss.doneChan():
	case <-time.After(waitFor):
		t.Fatalf("session %s did not end", ss.ID())
	}
}

// Sessions connected under one context share one watch of it: each closes,
// with the context's cause, when it ends, and the watch goes with the
// last session.
func TestSessionsSharingAParentCloseWithIt(t *testing.T) {
	s := fullServer(t, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	connect := func(ctx context.Context) *Session {
		t.Helper()
		_, serverEnd := transport.Pipe()
		ss, err := s.Connect(ctx, serverEnd, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ss
	}
	a, b, c := connect(ctx), connect(ctx), connect(ctx)
	unwatched := connect(context.Background()) // never ends: nothing to watch
	defer unwatched.Close()
	if got := parentWatches(s); got != 1 {
		t.Fatalf("%d parents watched, want 1", got)
	}
	a.Close()
	waitEnded(t, a)
	if got := parentWatches(s); got != 1 {
		t.Fatalf("%d parents watched after one of three sessions closed, want 1", got)
	}
	stop := errors.New("the transport is shutting down")
	cancel(stop)
	for _, ss := range []*Session{b, c} {
		waitEnded(t, ss)
		if cause := context.Cause(ss.handlersContext()); cause != stop {
			t.Errorf("session %s: handlers ended with %v, want the parent's cause", ss.ID(), cause)
		}
	}
	if got := parentWatches(s); got != 0 {
		t.Errorf("%d parents watched once the parent ended, want 0", got)
	}
	select {
	case <-unwatched.doneChan():
		t.Error("a session under another context ended with this one")
	default:
	}
}

// The watch of a parent goes when its last session closes, before the
// parent ends.
func TestParentWatchEndsWithItsLastSession(t *testing.T) {
	s := fullServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sessions []*Session
	for range 3 {
		_, serverEnd := transport.Pipe()
		ss, err := s.Connect(ctx, serverEnd, nil)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, ss)
	}
	for _, ss := range sessions {
		ss.Close()
		waitEnded(t, ss)
	}
	if got := parentWatches(s); got != 0 {
		t.Errorf("%d parents watched once their sessions closed, want 0", got)
	}
}

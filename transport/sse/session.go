package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// errStreamClosed is the error of a message sent after the session's event
// stream closed.
var errStreamClosed = errors.New("sse: the session's event stream has closed")

// session is one HTTP+SSE session: the jsonrpc.Stream the server reads
// POSTed messages from and writes event-stream messages to.
type session struct {
	h         *Handler
	id        string
	principal string // who opened the session (auth.PrincipalFrom); only they reach it
	client    string // the client its per-client limit counts it against (ClientKey)

	wmu  sync.Mutex // serializes writes to w
	w    http.ResponseWriter
	rc   *http.ResponseController
	beat Heartbeat // comments on the quiet stream; guarded by wmu

	mu    sync.Mutex
	inbox []jsonrpc.Message
	head  int
	ended bool
	wake  chan struct{}
	done  chan struct{} // closed when the session ends
}

func newSession(h *Handler, id, principal, client string, w http.ResponseWriter) *session {
	s := &session{h: h, id: id, principal: principal, client: client, w: w, rc: http.NewResponseController(w),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.beat = NewHeartbeat(h.opts.KeepAlive, s.ping)
	return s
}

// Read returns the next message the client POSTed, and io.EOF once the
// event stream has closed.
func (s *session) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		s.mu.Lock()
		if s.head < len(s.inbox) {
			msg := s.inbox[s.head]
			s.inbox[s.head] = nil
			s.head++
			if s.head == len(s.inbox) {
				s.inbox, s.head = s.inbox[:0], 0
			}
			s.mu.Unlock()
			return msg, nil
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return nil, io.EOF
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// maxUnread bounds the POSTed messages a session holds that the server
// has not read yet. The server's read loop is held up only while one of its
// writes to a stalled event stream waits (at most WriteTimeout); without a
// bound, POSTs in that time would pile up in memory.
const maxUnread = 1024

// push queues a POSTed message for Read. It reports false, queuing
// nothing, when maxUnread messages are already waiting.
func (s *session) push(msg jsonrpc.Message) bool {
	s.mu.Lock()
	if len(s.inbox)-s.head >= maxUnread {
		s.mu.Unlock()
		return false
	}
	s.inbox = append(s.inbox, msg)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// Write sends a message to the client as a "message" event.
func (s *session) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return s.send(Event{Name: "message", Data: data})
}

// send writes and flushes one event.
func (s *session) send(ev Event) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w == nil {
		return errStreamClosed
	}
	return s.sendLocked(func(w io.Writer) error { return WriteEvent(w, ev) })
}

// sendLocked writes to the stream with write and flushes it, within
// HandlerOptions.WriteTimeout; wmu is held.
func (s *session) sendLocked(write func(io.Writer) error) error {
	if d := s.h.opts.WriteTimeout; d > 0 {
		s.rc.SetWriteDeadline(time.Now().Add(d)) // ErrNotSupported leaves writes unbounded
		defer s.rc.SetWriteDeadline(time.Time{})
	}
	if err := write(s.w); err != nil {
		return err
	}
	if err := s.rc.Flush(); err != nil {
		return err
	}
	s.beat.Beat()
	return nil
}

// ping writes a comment to the stream after a quiet period. A failed write
// needs nothing more: the stream's handler sees its client gone.
func (s *session) ping() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w == nil {
		return
	}
	s.sendLocked(WriteComment)
}

// Close ends the session from the server's side: its event stream closes.
func (s *session) Close() error {
	s.end()
	return nil
}

// end marks the session ended: Read returns io.EOF once the inbox is
// empty, writes fail, and the stream's handler returns. The writer is
// detached before done is closed, and a second call waits for the first,
// so nothing writes to the response once its handler may have returned.
func (s *session) end() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		<-s.done
		return
	}
	s.ended = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.wmu.Lock()
	s.w, s.rc = nil, nil
	s.beat.Stop()
	s.wmu.Unlock()
	close(s.done)
}

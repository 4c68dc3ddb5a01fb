package transport

import (
	"context"
	"fmt"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// soonDelay is the longest a message given to WriteSoon waits for another
// message to go with.
const soonDelay = time.Millisecond

// soonHeld is what a StdioStream holds of the messages given to WriteSoon;
// its fields are guarded by the stream's writeMu.
type soonHeld struct {
	lines []byte      // the held messages, each ending in a newline
	timer *time.Timer // writes lines soonDelay after the first was held
	armed bool        // timer will fire
}

// written empties the held lines once they have gone with a message, and
// stops the timer: a timer that fired for nothing would start a goroutine.
func (h *soonHeld) written() {
	if h.armed {
		h.timer.Stop()
		h.armed = false
	}
	if cap(h.lines) > keptWriteBuffer {
		h.lines = nil
		return
	}
	h.lines = h.lines[:0]
}

// WriteSoon sends msg with the next message written, in the same write
// to the writer, or on its own within a millisecond if none is written
// before then. Messages keep their order: one held is written before any
// given to Write after it. It suits a notification the peer can take a
// moment later: when another message follows within the millisecond, it
// costs no write system call of its own. Held messages beyond 64 KiB are
// written at once; Close writes what is held, unless a Write is blocked on
// a peer that does not read.
func (s *StdioStream) WriteSoon(ctx context.Context, msg jsonrpc.Message) error {
	if err := s.lockToWrite(ctx); err != nil {
		return err
	}
	defer s.writeMu.unlock()
	lines, err := jsonrpc.AppendMessage(s.soon.lines, msg)
	if err != nil {
		return fmt.Errorf("transport: %w", err)
	}
	s.soon.lines = append(lines, '\n')
	if len(s.soon.lines) > keptWriteBuffer {
		return s.writeHeldLocked()
	}
	switch {
	case s.soon.timer == nil:
		s.soon.timer = time.AfterFunc(soonDelay, s.writeHeld)
	case !s.soon.armed:
		s.soon.timer.Reset(soonDelay)
	}
	s.soon.armed = true
	return nil
}

// writeHeld writes the held messages that no other message took along.
// An error is not reported here: the stream's next Write meets it.
func (s *StdioStream) writeHeld() {
	s.writeMu.lock()
	defer s.writeMu.unlock()
	s.soon.armed = false
	if !s.closed.Load() {
		_ = s.writeHeldLocked()
	}
}

// flushHeldOnClose writes the held messages as the stream closes, unless
// a Write holds the lock (blocked, perhaps, on a peer that does not read:
// Close must not wait for it), and stops the timer.
func (s *StdioStream) flushHeldOnClose() {
	if !s.writeMu.tryLock() {
		return
	}
	defer s.writeMu.unlock()
	_ = s.writeHeldLocked()
}

// writeHeldLocked writes the held messages, if any, on their own, and
// empties them (stopping the timer); writeMu is held.
func (s *StdioStream) writeHeldLocked() error {
	var err error
	if len(s.soon.lines) > 0 {
		err = s.writeLines(s.soon.lines)
	}
	s.soon.written()
	return err
}

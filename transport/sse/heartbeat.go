package sse

import (
	"io"
	"time"
)

// DefaultKeepAlive is how long an event stream may stay quiet before the
// server writes a comment to it, unless the handler options say otherwise:
// shorter than the idle timeouts of common proxies and load balancers
// (often 60 seconds).
const DefaultKeepAlive = 25 * time.Second

// DefaultWriteTimeout bounds each write to an event stream, unless the
// handler options say otherwise.
const DefaultWriteTimeout = 30 * time.Second

// keepAliveComment is the comment line a quiet stream gets.
const keepAliveComment = ": keep-alive\n\n"

// WriteComment writes an event-stream comment line (": keep-alive"), which
// clients ignore but which keeps proxies from closing a quiet connection.
func WriteComment(w io.Writer) error {
	_, err := io.WriteString(w, keepAliveComment)
	return err
}

// Heartbeat calls ping whenever a stream has been quiet for a period: after
// each Beat (a write to the stream) the next ping is a full period away.
// ping typically writes a comment with WriteComment and beats again. The
// zero Heartbeat, or one with a period of zero or less, never pings. Its
// owner serializes Beat and Stop, and ping runs on a timer's goroutine.
type Heartbeat struct {
	period time.Duration
	ping   func()
	timer  *time.Timer
}

// NewHeartbeat returns a Heartbeat that calls ping after each quiet period.
func NewHeartbeat(period time.Duration, ping func()) Heartbeat {
	return Heartbeat{period: period, ping: ping}
}

// Beat records a write: the next ping is a full period away.
func (h *Heartbeat) Beat() {
	switch {
	case h.period <= 0:
	case h.timer == nil:
		h.timer = time.AfterFunc(h.period, h.ping)
	default:
		h.timer.Reset(h.period)
	}
}

// Stop cancels the next ping; a later Beat arms it again.
func (h *Heartbeat) Stop() {
	if h.timer != nil {
		h.timer.Stop()
	}
}

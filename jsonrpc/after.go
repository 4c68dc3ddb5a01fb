package jsonrpc

import "context"

// AfterResponse arranges for f to run once the request whose handler's
// context is ctx has been answered, on the goroutine that served it and
// after its handler slot has gone to the next request: work that follows
// the answer (a task's run, started by the request that answers with the
// task) then costs no hand-off to another goroutine. f runs even when the
// answer was not sent (the request was cancelled, the connection closed);
// when the connection's read loop serves the request, reading passes to a
// new goroutine should f run for long (see WillWait), and the connection
// ends without waiting for f.
//
// It reports whether f will run: false when ctx is not a handler's
// context, when the handler has returned already, or when a PushStream's
// Serve serves the request, whose goroutine is the stream's and must
// return; the caller then runs f some other way. It must be called by the
// handler (before it returns); a second call adds f after the first's.
func AfterResponse(ctx context.Context, f func()) bool {
	in, _ := ctx.Value(servingKey{}).(*inbound)
	if in == nil || in.byCaller {
		return false
	}
	c := in.conn
	c.mu.Lock()
	defer c.mu.Unlock()
	if in.handled {
		return false
	}
	if prev := in.after; prev != nil {
		in.after = func() { prev(); f() }
	} else {
		in.after = f
	}
	return true
}

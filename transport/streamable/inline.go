package streamable

// StreamClosers is implemented by a Server that can tell, from a request's
// method and the name its params carry (mcp.NameParam: the tool of a
// tools/call), whether its handler may end the HTTP response carrying it
// before it returns (transport.Exchange.CloseStream), as *server.Server
// does. The Handler serves a legacy session's POST of one request that
// may not on the POST's own goroutine (jsonrpc.Receiver.Serve), which
// waits for the answer anyway; the exchange of such a request cannot close
// its stream (CloseStream reports false), since the response cannot end
// while that goroutine runs the handler. Every other request, and every
// request of a Server that does not implement it, is handed to the
// session's connection, which serves it on a goroutine of its own.
//
// Serving on the POST's goroutine saves the hand-off to a worker and back:
// two goroutine switches and their futex wake-ups per call, and 6,200 of
// the 125,700 instructions the server spent on a tools/call (callgrind at
// GOMAXPROCS=1, which barely sees the wake-ups; docs/decisions.md,
// "Plain-call cost (issue 19)").
type StreamClosers interface {
	MayCloseStream(method, name string) bool
}

// servesInline reports whether a legacy session's POST of the single
// request req, whose params named name, is served on the POST's goroutine
// (see StreamClosers).
func (h *Handler) servesInline(method, name string) bool {
	sc, ok := h.srv.(StreamClosers)
	return ok && !sc.MayCloseStream(method, name)
}

package jsonrpc

import "context"

// Stream moves whole messages between two peers. Implementations frame bytes
// (newline-delimited JSON for stdio, HTTP bodies, channels for an in-memory
// pipe) and must allow one Read concurrent with one Write; Conn never issues
// two Writes at once.
//
// Write receives the context of the work that produced the message. For a
// message sent from inside a request handler, InboundID(ctx) names the
// request being handled, so a transport can route related messages (progress,
// server-to-client requests) onto that request's own response stream.
type Stream interface {
	// Read returns the next message. It returns io.EOF when the peer has
	// closed the stream cleanly. A message that could not be decoded is
	// reported as a *DecodeError so the caller can answer it and keep reading.
	Read(ctx context.Context) (Message, error)
	// Write sends one message.
	Write(ctx context.Context, msg Message) error
	// Close releases the stream; a blocked Read returns.
	Close() error
}

// ReadAheadStream is a Stream that reads input ahead of the messages Read
// returns, into a buffer (transport's stdio stream does). Through it a Conn
// can tell whether more input has come, which MayWait asks when no other
// request of the connection is in flight.
type ReadAheadStream interface {
	Stream
	// Buffered returns the number of bytes read from the peer that Read
	// has not returned yet. The Conn calls it only between Reads.
	Buffered() int
}

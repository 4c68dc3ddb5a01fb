package transport

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
)

// Pipe returns the two ends of an in-memory, message-framed duplex stream.
// A message written to one end is read from the other. Messages really are
// encoded to bytes and decoded again, so whatever passes through a Pipe has
// passed the codec; bytes over jsonrpc.DefaultMaxMessageSize are reported
// by Read as a *jsonrpc.DecodeError.
//
// Like net.Pipe it is synchronous and unbuffered: Write waits until the other
// end reads the message (or either end closes, or ctx ends). After Close, Read
// and Write on that end return io.ErrClosedPipe; once the other end has
// closed, Read returns io.EOF and Write returns io.ErrClosedPipe.
func Pipe() (client, server jsonrpc.Stream) {
	ab, ba := make(chan []byte), make(chan []byte)
	a := &pipeEnd{in: ba, out: ab, closed: make(chan struct{})}
	b := &pipeEnd{in: ab, out: ba, closed: make(chan struct{})}
	a.peer, b.peer = b, a
	return a, b
}

// pipeEnd is one end of a Pipe.
type pipeEnd struct {
	in        <-chan []byte
	out       chan<- []byte
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
	peer      *pipeEnd

	decMu sync.Mutex // Read is meant for one goroutine; this keeps misuse safe
	dec   jsonrpc.Decoder
}

// Read returns the next message the other end wrote.
func (p *pipeEnd) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-p.closed:
		return nil, io.ErrClosedPipe
	default:
	}
	select {
	case data := <-p.in:
		if len(data) > jsonrpc.DefaultMaxMessageSize {
			return nil, oversize(len(data), jsonrpc.DefaultMaxMessageSize)
		}
		p.decMu.Lock()
		defer p.decMu.Unlock()
		return p.dec.Decode(data)
	case <-p.closed:
		return nil, io.ErrClosedPipe
	case <-p.peer.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write encodes msg and hands it to the other end.
func (p *pipeEnd) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("transport: pipe: %w", err)
	}
	select {
	case <-p.closed:
		return io.ErrClosedPipe
	case <-p.peer.closed:
		return io.ErrClosedPipe
	default:
	}
	select {
	case p.out <- data:
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	case <-p.peer.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close closes this end; it is safe to call more than once.
func (p *pipeEnd) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return nil
}

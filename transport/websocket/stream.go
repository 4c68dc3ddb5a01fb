package websocket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	ws "github.com/coder/websocket"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// keptWriteBuffer is the largest encoding buffer kept between writes.
const keptWriteBuffer = 64 << 10

// binaryReason is the close reason sent to a peer that sent a binary
// message (close code 1003, unsupported data).
const binaryReason = "MCP messages are text frames: send each JSON-RPC message as one text frame"

// Stream is a jsonrpc.Stream over one WebSocket connection: each message is
// one text frame holding one JSON-RPC message (or batch). A text frame that
// is not a valid message is reported by Read as a *jsonrpc.DecodeError, so
// the connection answers it and carries on; so is a message longer than
// the maximum size, which is skipped. A binary message ends the connection
// with close code 1003 (unsupported data). A close from the peer with code
// 1000, 1001 or none ends input (Read returns io.EOF).
//
// On the server side it implements transport.Exchanges: the handlers of
// its requests see the values of the upgrade request's context, such as
// the access token the auth middleware verified.
type Stream struct {
	conn *ws.Conn
	opts ConnOptions
	dec  jsonrpc.Decoder // used by Read only

	// upgrade holds the values of the upgrade request's context (server
	// side only, else nil); a token in it is checked for every request.
	upgrade context.Context
	// onClose runs once, when the stream closes (the Handler's count).
	onClose func()

	writeMu  sync.Mutex
	writeBuf []byte // reused encoding buffer, guarded by writeMu

	closed atomic.Bool
	done   chan struct{}         // closed by Close: stops the keep-alive
	failed atomic.Pointer[error] // why the stream closed the connection itself
}

// newStream wraps conn, starting its keep-alive.
func newStream(conn *ws.Conn, opts ConnOptions, upgrade context.Context, onClose func()) *Stream {
	s := &Stream{conn: conn, opts: opts.withDefaults(), upgrade: upgrade, onClose: onClose, done: make(chan struct{})}
	conn.SetReadLimit(-1) // Read bounds messages itself, so that one too long is skipped, not fatal
	if s.opts.KeepAlive > 0 {
		go s.keepAlive()
	}
	return s
}

// Read returns the next message. It must not be called by two goroutines
// at once. ctx does not cut a read short: Close does, with a close frame.
// (The library drops the connection, sending no close frame, when the
// context of a read ends, and a jsonrpc.Conn ends the context it reads
// with just before it closes the stream: its peer then saw 1006,
// abnormal closure, instead of the 1000 or 1001 it was sent.)
func (s *Stream) Read(ctx context.Context) (jsonrpc.Message, error) {
	ctx = context.WithoutCancel(ctx)
	for {
		typ, r, err := s.conn.Reader(ctx)
		if err != nil {
			return nil, s.readError(err)
		}
		data, size, err := readMessage(r, s.opts.MaxMessageSize)
		if err != nil {
			return nil, s.readError(err)
		}
		if typ != ws.MessageText {
			err := errors.New("websocket: the peer sent a binary message; MCP messages are text frames, so the connection was closed with code 1003")
			s.fail(err, ws.StatusUnsupportedData, binaryReason)
			return nil, err
		}
		if data == nil {
			return nil, &jsonrpc.DecodeError{
				ID:  jsonrpc.NullID,
				Err: jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "message of %d bytes exceeds the limit of %d bytes", size, s.opts.MaxMessageSize),
			}
		}
		msg, err := s.dec.Decode(data)
		if err != nil {
			return nil, err
		}
		if s.upgrade != nil {
			if msg = s.authorize(msg); msg == nil {
				continue
			}
		}
		return msg, nil
	}
}

// readMessage reads the rest of a message, up to limit bytes. A longer
// message is consumed but not kept: data is nil and size its length.
func readMessage(r io.Reader, limit int) (data []byte, size int, err error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, 0, err
	}
	if n <= int64(limit) {
		return buf.Bytes(), int(n), nil
	}
	rest, err := io.Copy(io.Discard, r)
	if err != nil {
		return nil, 0, err
	}
	return nil, int(n + rest), nil
}

// readError says why reading failed: io.EOF for a clean close by the peer.
func (s *Stream) readError(err error) error {
	if failed := s.failed.Load(); failed != nil {
		return *failed
	}
	switch ws.CloseStatus(err) {
	case ws.StatusNormalClosure, ws.StatusGoingAway, ws.StatusNoStatusRcvd:
		return io.EOF
	case -1:
	default:
		return fmt.Errorf("websocket: the peer closed the connection: %w", err)
	}
	if s.closed.Load() {
		return fmt.Errorf("websocket: reading from a closed stream: %w", io.ErrClosedPipe)
	}
	return fmt.Errorf("websocket: reading a message: %w", err)
}

// Write sends msg as one text frame. ctx is checked before writing, but
// does not cut a write short (that would close the connection); each
// write is bounded by ConnOptions.WriteTimeout instead.
func (s *Stream) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.closed.Load() {
		return fmt.Errorf("websocket: writing to a closed stream: %w", io.ErrClosedPipe)
	}
	buf, err := jsonrpc.AppendMessage(s.writeBuf[:0], msg)
	if err != nil {
		return fmt.Errorf("websocket: %w", err)
	}
	if cap(buf) <= keptWriteBuffer {
		s.writeBuf = buf[:0]
	}
	wctx := context.Background()
	if s.opts.WriteTimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(wctx, s.opts.WriteTimeout)
		defer cancel()
	}
	if err := s.conn.Write(wctx, ws.MessageText, buf); err != nil {
		if wctx.Err() != nil {
			return fmt.Errorf("websocket: the peer read nothing for %v, so the connection was closed: %w", s.opts.WriteTimeout, err)
		}
		return fmt.Errorf("websocket: writing a message: %w", err)
	}
	return nil
}

// Close closes the connection with code 1000 (normal closure), after the
// close handshake when the peer answers it. A blocked Read returns. It is
// safe to call more than once.
func (s *Stream) Close() error {
	return s.closeWith(ws.StatusNormalClosure, "")
}

// closeWith closes the connection once, with code and reason.
func (s *Stream) closeWith(code ws.StatusCode, reason string) error {
	if s.closed.Swap(true) {
		return nil
	}
	close(s.done)
	if s.onClose != nil {
		defer s.onClose()
	}
	err := s.conn.Close(code, reason)
	var ce ws.CloseError
	switch {
	case err == nil, s.failed.Load() != nil, errors.Is(err, net.ErrClosed), errors.Is(err, io.EOF),
		errors.As(err, &ce): // the peer closed or went first: nothing went wrong here
		return nil
	}
	return fmt.Errorf("websocket: closing: %w", err)
}

// fail closes the connection because of err, which Read reports from now
// on.
func (s *Stream) fail(err error, code ws.StatusCode, reason string) {
	s.failed.CompareAndSwap(nil, &err)
	s.closeWith(code, reason)
}

// keepAlive pings the peer every ConnOptions.KeepAlive until the stream
// closes, and closes the connection (1008) when a pong is late.
func (s *Stream) keepAlive() {
	t := time.NewTicker(s.opts.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.PongTimeout)
		err := s.conn.Ping(ctx)
		cancel()
		if err == nil {
			continue
		}
		if !s.closed.Load() {
			s.fail(fmt.Errorf("websocket: the peer did not answer a ping within %v, so the connection was taken as dead and closed: %w", s.opts.PongTimeout, err),
				ws.StatusPolicyViolation, "no pong within "+s.opts.PongTimeout.String()+": the connection is taken as dead")
		}
		return
	}
}

// Exchange returns the exchange of every request on a connection a
// Handler accepted: the upgrade request's, whose context values (the
// verified access token) reach the request's handler. It returns nil on
// a connection Dial opened.
func (s *Stream) Exchange(jsonrpc.ID) transport.Exchange {
	if s.upgrade == nil {
		return nil
	}
	return upgradeExchange{s.upgrade}
}

// upgradeExchange is the HTTP exchange that opened a WebSocket
// connection, as every request on it sees it.
type upgradeExchange struct{ ctx context.Context }

// Context returns the upgrade request's context (only its values are of
// use).
func (e upgradeExchange) Context() context.Context { return e.ctx }

// CloseStream reports false: a WebSocket has no SSE stream to end.
func (upgradeExchange) CloseStream() bool { return false }

// Refuse reports false: the upgrade was answered long ago, so an
// authorization error becomes the request's JSON-RPC error.
func (upgradeExchange) Refuse(error) bool { return false }

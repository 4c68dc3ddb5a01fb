package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/weftmcp/weft/jsonrpc"
)

// readBufferSize is the size of the line reader's buffer; longer lines are
// assembled from several reads.
const readBufferSize = 32 << 10

// keptWriteBuffer is the largest encoding buffer kept between writes.
const keptWriteBuffer = 64 << 10

// StdioStream is a jsonrpc.Stream of newline-delimited JSON over a reader and
// a writer: each message is one line, with no newline inside it (the encoder
// writes compact JSON). Blank lines are ignored; a line longer than the
// maximum message size is skipped up to its newline and reported by Read as
// a *jsonrpc.DecodeError, so the connection answers it and carries on.
type StdioStream struct {
	r       *bufio.Reader
	rc      io.Closer // the reader, if it can be closed
	w       io.Writer
	maxSize int
	dec     jsonrpc.Decoder // used by Read only

	writeMu  writeLock
	writeBuf []byte // reused encoding buffer, guarded by writeMu
	soon     soonHeld

	closed atomic.Bool
}

// A StdioStream tells a connection whether more input has come
// (jsonrpc.MayWait).
var _ jsonrpc.ReadAheadStream = (*StdioStream)(nil)

// NewStdio returns a stream that reads messages from r and writes them to w.
// It reads WithMaxMessageSize.
func NewStdio(r io.Reader, w io.Writer, opts ...Option) *StdioStream {
	o := buildOptions(opts)
	s := &StdioStream{r: bufio.NewReaderSize(r, readBufferSize), w: w, maxSize: o.maxMessageSize, writeMu: newWriteLock()}
	if rc, ok := r.(io.Closer); ok {
		s.rc = rc
	}
	return s
}

// Stdio returns a stream over the process's standard input and output, the
// MCP stdio transport as a server sees it.
func Stdio(opts ...Option) *StdioStream {
	return NewStdio(os.Stdin, os.Stdout, opts...)
}

// Read returns the next message. It returns io.EOF at the end of input. It
// must not be called by two goroutines at once. The underlying read cannot be
// interrupted by ctx; Close interrupts it when the reader is an io.Closer that
// supports that (pipes do).
func (s *StdioStream) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, size, err := s.readLine()
		if err != nil {
			if s.closed.Load() {
				return nil, fmt.Errorf("transport: reading from a closed stdio stream: %w", io.ErrClosedPipe)
			}
			return nil, err
		}
		if size > s.maxSize {
			return nil, oversize(size, s.maxSize)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return s.dec.Decode(line)
	}
}

// Buffered returns the number of bytes read from the reader that Read has
// not returned yet: more input has come when it is above 0. It must not be
// called while a Read is in progress (jsonrpc.ReadAheadStream).
func (s *StdioStream) Buffered() int { return s.r.Buffered() }

// readLine reads one line and returns it without its line ending, along with
// its length. A line longer than the maximum size is consumed but not kept
// (line is nil, size is its length). A last line without a newline counts.
func (s *StdioStream) readLine() (line []byte, size int, err error) {
	limit := s.maxSize + len("\r\n")
	var frag []byte
	for {
		frag, err = s.r.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !full && !(errors.Is(err, io.EOF) && size+len(frag) > 0) {
			return nil, 0, err
		}
		size += len(frag)
		if size <= limit {
			line = append(line, frag...)
		} else {
			line = nil
		}
		if !full {
			break
		}
	}
	if size > limit {
		return nil, size - lineEnding(frag), nil
	}
	line = line[:len(line)-lineEnding(line)]
	return line, len(line), nil
}

// lineEnding returns the length of the line ending b ends with: 2 for CRLF,
// 1 for LF, 0 for none.
func lineEnding(b []byte) int {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(b, []byte("\n")):
		return 1
	}
	return 0
}

// Write sends msg as one line. The encoded message and its newline reach the
// writer in a single Write call, after the messages WriteSoon holds, if
// any, in that same call; then a Flush if the writer has one. A request
// (not a notification) returns when ctx ends even if a peer that does not
// read keeps its line from being written (see writeAbandonable).
func (s *StdioStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := s.lockToWrite(ctx); err != nil {
		return err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsNotification() && ctx.Done() != nil {
		return s.writeAbandonable(ctx, msg)
	}
	defer s.writeMu.unlock()
	return s.writeLocked(msg)
}

// writeAbandonable writes msg, with writeMu held, on a goroutine of its
// own that releases the lock, and returns when msg is written or when ctx
// ends, whichever comes first. So a Call to a peer that has stopped
// reading (a wedged server process, its pipe full) returns its context's
// error as it promises: written on the caller's goroutine, the line kept
// the call blocked in the write for as long as the peer did not read. The
// line is still written whole after ctx ends (a part of one would break
// the framing), and the lock, taken before the caller can return, keeps
// the messages sent after it behind it. Only requests go this way: a
// goroutine a message would cost responses and notifications, which have
// no caller waiting on a deadline.
func (s *StdioStream) writeAbandonable(ctx context.Context, msg jsonrpc.Message) error {
	written := make(chan error, 1)
	go func() {
		defer s.writeMu.unlock()
		written <- s.writeLocked(msg)
	}()
	select {
	case err := <-written:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeLocked writes msg, after the messages WriteSoon holds; writeMu is
// held.
func (s *StdioStream) writeLocked(msg jsonrpc.Message) error {
	buf, err := jsonrpc.AppendMessage(append(s.writeBuf[:0], s.soon.lines...), msg)
	if err != nil {
		return fmt.Errorf("transport: %w", err)
	}
	buf = append(buf, '\n')
	if cap(buf) <= keptWriteBuffer {
		s.writeBuf = buf[:0]
	}
	s.soon.written()
	return s.writeLines(buf)
}

// lockToWrite takes writeMu, unless ctx ends first or the stream is
// closed: then it returns why, without the lock.
func (s *StdioStream) lockToWrite(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.writeMu.lockUntil(ctx); err != nil {
		return err
	}
	if s.closed.Load() {
		s.writeMu.unlock()
		return fmt.Errorf("transport: writing to a closed stdio stream: %w", io.ErrClosedPipe)
	}
	return nil
}

// writeLines writes buf, whole lines, to the writer and flushes it if it
// has a Flush method; writeMu is held.
func (s *StdioStream) writeLines(buf []byte) error {
	if _, err := s.w.Write(buf); err != nil {
		return fmt.Errorf("transport: writing a message: %w", err)
	}
	if f, ok := s.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("transport: flushing a message: %w", err)
		}
	}
	return nil
}

// Close closes the writer if it is an io.Closer (which tells the peer the
// input has ended) and then the reader if it is one (to release a blocked
// Read; its error is ignored, since reader and writer may be one object).
// Later writes fail; it is safe to call more than once.
func (s *StdioStream) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.flushHeldOnClose()
	// No lock: closing the writer is what releases a Write blocked on a
	// peer that does not read.
	var err error
	if wc, ok := s.w.(io.Closer); ok {
		err = wc.Close()
	}
	if s.rc != nil {
		_ = s.rc.Close()
	}
	return err
}

package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrEventTooLarge is returned by Reader.Next when an event's data exceeds
// the Reader's limit. The stream cannot be read further.
var ErrEventTooLarge = errors.New("sse: event too large")

// Reader reads server-sent events from an event stream.
//
// Lines end with CRLF, LF or a lone CR, as the event stream format says.
// Comment lines (starting with ':') and unknown fields are ignored. A Reader
// is not safe for concurrent use.
type Reader struct {
	br     *bufio.Reader
	max    int
	lastID string
	retry  int
	data   []byte
	long   []byte // a line longer than br's buffer, collected
	// afterCR is set when the last line ended with CR: an LF that follows
	// belongs to that line end. It is checked when the next line is read,
	// so an event ending in a lone CR is not held back waiting for a byte.
	afterCR bool
}

// NewReader returns a Reader of r that refuses events whose data is longer
// than maxData bytes (no limit when maxData <= 0).
func NewReader(r io.Reader, maxData int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 8<<10), max: maxData}
}

// LastID returns the last event ID the stream has set, which a client sends
// as Last-Event-ID to resume after it.
func (r *Reader) LastID() string { return r.lastID }

// Retry returns the last reconnection time the stream has set, in
// milliseconds, or 0 if it has set none.
func (r *Reader) Retry() int { return r.retry }

// Next returns the next event that has a data field. Its Data is valid only
// until the following call to Next. Next returns io.EOF when the stream ends
// between events and io.ErrUnexpectedEOF when it ends inside one.
func (r *Reader) Next() (Event, error) {
	var e Event
	hasData, started := false, false
	r.data = r.data[:0]
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && started {
				err = io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if hasData {
				e.Data = r.data
				return e, nil
			}
			// A blank line ends an event without data, which is not
			// dispatched; its id and retry fields still took effect.
			e, started = Event{}, false
			continue
		}
		started = true
		if line[0] == ':' {
			continue
		}
		name, value, _ := bytes.Cut(line, []byte{':'})
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "data":
			if hasData {
				r.data = append(r.data, '\n')
			}
			hasData = true
			if r.max > 0 && len(r.data)+len(value) > r.max {
				return Event{}, fmt.Errorf("%w: more than %d bytes of data", ErrEventTooLarge, r.max)
			}
			r.data = append(r.data, value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 { // the format ignores IDs containing NUL
				e.ID = string(value)
				r.lastID = e.ID
			}
		case "event":
			e.Name = string(value)
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				e.Retry = n
				r.retry = n
			}
		}
	}
}

// readLine returns the next line without its line end. The returned slice is
// valid until the next read.
func (r *Reader) readLine() ([]byte, error) {
	if r.afterCR {
		r.afterCR = false
		b, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if b != '\n' {
			_ = r.br.UnreadByte() // cannot fail right after ReadByte
		}
	}
	r.long = r.long[:0]
	for {
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				if err == io.EOF && len(r.long) > 0 {
					return nil, io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if i := bytes.IndexAny(buf, "\r\n"); i >= 0 {
			r.afterCR = buf[i] == '\r'
			line := buf[:i]
			if len(r.long) > 0 {
				r.long = append(r.long, line...)
				line = r.long
			}
			_, _ = r.br.Discard(i + 1) // the bytes are buffered; the slice stays valid until the next fill
			return line, nil
		}
		// No line end in the buffer: collect what it holds, within the limit.
		if r.max > 0 && len(r.long)+len(buf) > r.max+64 {
			return nil, fmt.Errorf("%w: a line is longer than %d bytes", ErrEventTooLarge, r.max)
		}
		r.long = append(r.long, buf...)
		_, _ = r.br.Discard(len(buf))
	}
}

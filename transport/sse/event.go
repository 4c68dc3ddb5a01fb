package sse

import (
	"bytes"
	"io"
	"strconv"
)

// Event is one server-sent event. The zero Event is a message event with no
// ID and empty data.
type Event struct {
	// ID is the event's "id" field; empty means the event has none.
	ID string
	// Name is the event's "event" field (its type); empty means "message".
	Name string
	// Data is the event's data. Line breaks in it become separate "data"
	// lines on the wire and come back as "\n".
	Data []byte
	// Retry, when positive, is the "retry" field: how many milliseconds a
	// client waits before reconnecting after the connection drops.
	Retry int
}

// AppendEvent appends e in the event-stream format to b and returns the
// extended buffer. An event always has a data field, even an empty one, so
// that a client dispatches it (an event with an ID and empty data primes a
// client to resume from that ID).
func AppendEvent(b []byte, e Event) []byte {
	if e.ID != "" {
		b = append(b, "id: "...)
		b = append(b, e.ID...)
		b = append(b, '\n')
	}
	if e.Name != "" {
		b = append(b, "event: "...)
		b = append(b, e.Name...)
		b = append(b, '\n')
	}
	if e.Retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(e.Retry), 10)
		b = append(b, '\n')
	}
	data := e.Data
	for {
		line, rest, more := cutLine(data)
		if len(line) == 0 {
			b = append(b, "data:\n"...)
		} else {
			b = append(b, "data: "...)
			b = append(b, line...)
			b = append(b, '\n')
		}
		if !more {
			break
		}
		data = rest
	}
	return append(b, '\n')
}

// WriteEvent writes e to w in one Write call.
func WriteEvent(w io.Writer, e Event) error {
	_, err := w.Write(AppendEvent(make([]byte, 0, len(e.Data)+len(e.ID)+32), e))
	return err
}

// cutLine splits data at its first line break (CRLF, LF or CR, as the
// event-stream format defines them) and reports whether there was one.
func cutLine(data []byte) (line, rest []byte, found bool) {
	i := bytes.IndexAny(data, "\r\n")
	if i < 0 {
		return data, nil, false
	}
	if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
		return data[:i], data[i+2:], true
	}
	return data[:i], data[i+1:], true
}

package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader checks the event reader on any byte stream: it never panics,
// never returns more data than its limit, ends with io.EOF,
// io.ErrUnexpectedEOF or ErrEventTooLarge, returns no data holding a CR
// (every CR ends a line), and every event it returns reads back the same
// after AppendEvent.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		"event: message\ndata: {\"a\":1}\n\n",
		"id: 7\nretry: 1500\ndata:\n\n: comment\ndata: a\r\ndata: b\r\n\r\n",
		"data: x\n",
		"id: a\x00b\nevent: endpoint\ndata: /mcp?sessionId=1\n\nid:\ndata:  two spaces\n\n",
		"retry: -1\nretry: x\nfield without colon\ndata\n\n",
		"data: " + string(bytes.Repeat([]byte("y"), 9000)) + "\n\n",
		"id: 1\rdata: a\rdata: b\r\rdata: c\r\n\r\n",
	} {
		f.Add([]byte(seed), uint16(64))
	}
	f.Fuzz(func(t *testing.T, stream []byte, limit uint16) {
		maxData := int(limit) % 2048 // 0: no limit
		r := NewReader(bytes.NewReader(stream), maxData)
		for {
			ev, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrEventTooLarge) {
					t.Fatalf("Next failed with %v", err)
				}
				return
			}
			if maxData > 0 && len(ev.Data) > maxData {
				t.Fatalf("an event of %d bytes of data passed the limit of %d", len(ev.Data), maxData)
			}
			if bytes.IndexByte(ev.Data, '\r') >= 0 {
				t.Fatalf("event data %q holds a CR, which ends a line", ev.Data)
			}
			back, err := NewReader(bytes.NewReader(AppendEvent(nil, ev)), 0).Next()
			if err != nil || back.ID != ev.ID || back.Name != ev.Name || !bytes.Equal(back.Data, ev.Data) || back.Retry != ev.Retry {
				t.Fatalf("event %+v reads back as %+v (%v)", ev, back, err)
			}
		}
	})
}

package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"data only", Event{Data: []byte(`{"a":1}`)}, "data: {\"a\":1}\n\n"},
		{"all fields", Event{ID: "1_2", Name: "message", Retry: 500, Data: []byte("x")}, "id: 1_2\nevent: message\nretry: 500\ndata: x\n\n"},
		{"priming: id and empty data", Event{ID: "0_0"}, "id: 0_0\ndata:\n\n"},
		{"line breaks become data lines", Event{Data: []byte("a\nb\r\nc\rd")}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
	}
	for _, tt := range tests {
		if got := string(AppendEvent(nil, tt.ev)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestReaderRoundTripsWrittenEvents(t *testing.T) {
	evs := []Event{
		{ID: "0_0", Retry: 1000},
		{ID: "0_1", Name: "message", Data: []byte(`{"jsonrpc":"2.0","method":"x"}`)},
		{Data: []byte("two\nlines")},
		{Data: []byte(" leading space kept after the first")},
	}
	var buf bytes.Buffer
	for _, ev := range evs {
		if err := WriteEvent(&buf, ev); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf, 0)
	for i, want := range evs {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got.ID != want.ID || got.Name != want.Name || got.Retry != want.Retry || !bytes.Equal(got.Data, want.Data) {
			t.Errorf("event %d: got %+v (%q), want %+v (%q)", i, got, got.Data, want, want.Data)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
	if r.LastID() != "0_1" || r.Retry() != 1000 {
		t.Errorf("LastID %q Retry %d, want 0_1 and 1000", r.LastID(), r.Retry())
	}
}

func TestReaderFollowsTheEventStreamFormat(t *testing.T) {
	in := ": a comment\r\n" +
		"id: 7\r\n" +
		"retry: 250\r\n" +
		"\r\n" + // an event without data is not dispatched, but its fields count
		"unknown: field\n" +
		"data:no space\n" +
		"data:  two spaces\n" +
		"\n" +
		"event: endpoint\n" +
		"data: /messages?sessionId=x\n" +
		"\n"
	r := NewReader(strings.NewReader(in), 0)
	ev, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if string(ev.Data) != "no space\n two spaces" || ev.ID != "" || r.LastID() != "7" || r.Retry() != 250 {
		t.Fatalf("got %+v data %q last ID %q retry %d", ev, ev.Data, r.LastID(), r.Retry())
	}
	ev, err = r.Next()
	if err != nil || ev.Name != "endpoint" || string(ev.Data) != "/messages?sessionId=x" {
		t.Fatalf("got %+v %q, %v; want the endpoint event", ev, ev.Data, err)
	}
}

func TestReaderReportsTruncatedStreams(t *testing.T) {
	r := NewReader(strings.NewReader("data: partial\n"), 0)
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("a stream ending inside an event gave %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestReaderBoundsEventSize(t *testing.T) {
	big := "data: " + strings.Repeat("x", 100) + "\n\n"
	if _, err := NewReader(strings.NewReader(big), 50).Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("an event over the limit gave %v, want ErrEventTooLarge", err)
	}
	long := "data: " + strings.Repeat("y", 20000) + "\n\n"
	if _, err := NewReader(strings.NewReader(long), 1000).Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("a line longer than the buffer and the limit gave %v, want ErrEventTooLarge", err)
	}
	ev, err := NewReader(strings.NewReader(long), 0).Next()
	if err != nil || len(ev.Data) != 20000 {
		t.Fatalf("an unbounded reader read %d bytes, %v; want the 20000-byte line", len(ev.Data), err)
	}
}

func TestReaderTakesEveryLineEndTheFormatNames(t *testing.T) {
	// CRLF, LF and a lone CR each end a line; a CR at the end of what has
	// arrived ends its line without waiting for the next byte.
	in := "id: 1\rdata: a\rdata: b\r\r" + "data: c\r\n\r\n" + "data: d\n\n" + "data: e\r\r"
	r := NewReader(strings.NewReader(in), 0)
	for _, want := range []string{"a\nb", "c", "d", "e"} {
		ev, err := r.Next()
		if err != nil || string(ev.Data) != want {
			t.Fatalf("got %q, %v; want %q", ev.Data, err, want)
		}
	}
	if r.LastID() != "1" {
		t.Errorf("LastID %q, want 1", r.LastID())
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	events := make(chan string)
	go func() {
		ev, err := NewReader(pr, 0).Next()
		if err != nil {
			events <- err.Error()
			return
		}
		events <- string(ev.Data)
	}()
	if _, err := pw.Write([]byte("data: live\r\r")); err != nil {
		t.Fatal(err)
	}
	if got := <-events; got != "live" {
		t.Fatalf("an event ended by CR CR, with the stream still open, read as %q", got)
	}
}

package transport_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// notification is a small notification for the WriteSoon tests, and the
// line it is written as.
func notification(n int) (jsonrpc.Message, string) {
	params := fmt.Sprintf(`{"n":%d}`, n)
	return &jsonrpc.Request{Method: "note", Params: []byte(params)},
		`{"jsonrpc":"2.0","method":"note","params":` + params + "}\n"
}

// written returns the writes so far.
func (w *recordingWriter) written() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

func TestWriteSoonGoesFirstInTheNextWrite(t *testing.T) {
	// In a bubble, so that the millisecond after which the notifications
	// would go alone does not pass, however slow the machine.
	synctest.Test(t, testWriteSoonGoesFirstInTheNextWrite)
}

func testWriteSoonGoesFirstInTheNextWrite(t *testing.T) {
	w := &recordingWriter{}
	s := transport.NewStdio(strings.NewReader(""), w)
	defer s.Close()
	note1, line1 := notification(1)
	note2, line2 := notification(2)
	for _, note := range []jsonrpc.Message{note1, note2} {
		if err := s.WriteSoon(context.Background(), note); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.written(); len(got) != 0 {
		t.Fatalf("WriteSoon wrote at once: %q", got)
	}
	if err := s.Write(context.Background(), &jsonrpc.Response{ID: jsonrpc.Int64ID(7), Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	response := `{"jsonrpc":"2.0","id":7,"result":{}}` + "\n"
	if got, want := w.written(), []string{line1 + line2 + response}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("writes:\n got %q\nwant %q (the held notifications first, in one write with the response)", got, want)
	}
	if err := s.Write(context.Background(), &jsonrpc.Response{ID: jsonrpc.Int64ID(8), Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); len(got) != 2 || got[1] != `{"jsonrpc":"2.0","id":8,"result":{}}`+"\n" {
		t.Fatalf("the write after: %q; want the response alone (held notifications go once)", got)
	}
}

func TestWriteSoonIsWrittenAloneWithinAMillisecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &recordingWriter{}
		s := transport.NewStdio(strings.NewReader(""), w)
		defer s.Close()
		note1, line1 := notification(1)
		note2, line2 := notification(2)
		if err := s.WriteSoon(context.Background(), note1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond / 2)
		if err := s.WriteSoon(context.Background(), note2); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond/2 - time.Nanosecond)
		synctest.Wait()
		if got := w.written(); len(got) != 0 {
			t.Fatalf("written before a millisecond had passed: %q", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got, want := w.written(), []string{line1 + line2}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("a millisecond after the first was held, writes %q; want %q", got, want)
		}
		// The timer is armed again by the next message held.
		note3, line3 := notification(3)
		if err := s.WriteSoon(context.Background(), note3); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := w.written(); len(got) != 2 || got[1] != line3 {
			t.Fatalf("writes %q; want the third notification written alone a millisecond after it was held", got)
		}
	})
}

func TestWriteSoonWritesAtOnceBeyond64KiB(t *testing.T) {
	w := &recordingWriter{}
	s := transport.NewStdio(strings.NewReader(""), w)
	defer s.Close()
	big := &jsonrpc.Request{Method: "note", Params: []byte(`{"text":"` + strings.Repeat("x", 64<<10) + `"}`)}
	if err := s.WriteSoon(context.Background(), big); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); len(got) != 1 || len(got[0]) < 64<<10 {
		t.Fatalf("%d writes after holding more than 64 KiB; want it written at once", len(got))
	}
}

func TestCloseWritesWhatIsHeld(t *testing.T) {
	synctest.Test(t, testCloseWritesWhatIsHeld) // the timer does not write it first
}

func testCloseWritesWhatIsHeld(t *testing.T) {
	w := &recordingWriter{}
	s := transport.NewStdio(strings.NewReader(""), w)
	note, line := notification(1)
	if err := s.WriteSoon(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); fmt.Sprint(got) != fmt.Sprint([]string{line}) {
		t.Fatalf("writes after Close: %q; want the held notification", got)
	}
	if err := s.WriteSoon(context.Background(), note); err == nil {
		t.Fatal("WriteSoon after Close succeeded")
	}
}

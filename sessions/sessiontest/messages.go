package sessiontest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
)

// TestMessageLog runs the MessageLog contract against fresh logs from
// open, one per subtest.
func TestMessageLog(t *testing.T, open func(t *testing.T) sessions.MessageLog) {
	runMessages(t, func(t *testing.T) (sessions.MessageLog, sessions.MessageLog) {
		l := open(t)
		return l, l
	})
}

// TestMessageLogPair runs the MessageLog contract with two handles on one
// fresh backing store per subtest, standing for two instances: appends go
// through one and reads through the other.
func TestMessageLogPair(t *testing.T, open func(t *testing.T) (a, b sessions.MessageLog)) {
	runMessages(t, open)
}

type logOpener func(t *testing.T) (a, b sessions.MessageLog)

func runMessages(t *testing.T, open logOpener) {
	tests := []struct {
		name string
		fn   func(*testing.T, logOpener)
	}{
		{"AppendNumbersFromOne", testAppendNumbers},
		{"BoxesAndSessionsAreApart", testBoxesApart},
		{"ConcurrentAppendsLeaveNoGap", testConcurrentAppends},
		{"OldMessagesAreTrimmed", testTrimmed},
		{"ReaderUntilATime", testReader},
		{"DeleteForgetsTheSession", testDeleteMessages},
		{"CancelledContextOnMessages", testMessagesCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

func appendMsg(t *testing.T, l sessions.MessageLog, session string, box sessions.Box, data string) uint64 {
	t.Helper()
	seq, err := l.Append(context.Background(), session, box, []byte(data))
	if err != nil {
		t.Fatalf("Append(%s, %d, %s): %v", session, box, data, err)
	}
	return seq
}

func readMsgs(t *testing.T, l sessions.MessageLog, session string, box sessions.Box, after uint64) []sessions.Message {
	t.Helper()
	msgs, err := l.Read(context.Background(), session, box, after)
	if err != nil {
		t.Fatalf("Read(%s, %d, after %d): %v", session, box, after, err)
	}
	return msgs
}

func testAppendNumbers(t *testing.T, open logOpener) {
	a, b := open(t)
	s := rand.Text()
	if last, err := b.Last(context.Background(), s, sessions.ToClient); err != nil || last != 0 {
		t.Fatalf("Last of an empty box = %d, %v; want 0, nil", last, err)
	}
	if msgs := readMsgs(t, b, s, sessions.ToClient, 0); len(msgs) != 0 {
		t.Fatalf("Read of an empty box = %d messages, want none", len(msgs))
	}
	data := []string{`{"jsonrpc":"2.0","method":"a"}`, `{"jsonrpc":"2.0","method":"b","params":{"x":"é\u0000"}}`, `{}`}
	for i, d := range data {
		if seq := appendMsg(t, a, s, sessions.ToClient, d); seq != uint64(i+1) {
			t.Fatalf("Append %d returned %d, want %d", i+1, seq, i+1)
		}
	}
	if last, err := b.Last(context.Background(), s, sessions.ToClient); err != nil || last != 3 {
		t.Fatalf("Last = %d, %v; want 3, nil", last, err)
	}
	msgs := readMsgs(t, b, s, sessions.ToClient, 0)
	if len(msgs) != 3 {
		t.Fatalf("Read after 0 = %d messages, want 3", len(msgs))
	}
	for i, m := range msgs {
		if m.Seq != uint64(i+1) || string(m.Data) != data[i] {
			t.Errorf("message %d = %d %q, want %d %q", i, m.Seq, m.Data, i+1, data[i])
		}
	}
	msgs = readMsgs(t, b, s, sessions.ToClient, 2)
	if len(msgs) != 1 || msgs[0].Seq != 3 {
		t.Fatalf("Read after 2 = %v, want message 3 alone", msgs)
	}
	if msgs := readMsgs(t, b, s, sessions.ToClient, 3); len(msgs) != 0 {
		t.Fatalf("Read after the last = %d messages, want none", len(msgs))
	}
	// The log keeps copies: changing what was appended or read changes nothing.
	buf := []byte(`{"n":1}`)
	seq, err := a.Append(context.Background(), s, sessions.ToClient, buf)
	if err != nil {
		t.Fatal(err)
	}
	buf[2] = 'X'
	got := readMsgs(t, b, s, sessions.ToClient, seq-1)
	got[0].Data[2] = 'Y'
	if again := readMsgs(t, b, s, sessions.ToClient, seq-1); string(again[0].Data) != `{"n":1}` {
		t.Fatalf("message %d = %q after its buffers were changed, want {\"n\":1}", seq, again[0].Data)
	}
}

func testBoxesApart(t *testing.T, open logOpener) {
	a, b := open(t)
	s1, s2 := rand.Text(), rand.Text()
	appendMsg(t, a, s1, sessions.ToClient, "c1")
	appendMsg(t, a, s1, sessions.ToClient, "c2")
	if seq := appendMsg(t, a, s1, sessions.ToServer, "s1"); seq != 1 {
		t.Fatalf("the first ToServer message is %d, want 1: boxes are numbered apart", seq)
	}
	if seq := appendMsg(t, a, s2, sessions.ToClient, "other"); seq != 1 {
		t.Fatalf("another session's first message is %d, want 1", seq)
	}
	if msgs := readMsgs(t, b, s1, sessions.ToServer, 0); len(msgs) != 1 || string(msgs[0].Data) != "s1" {
		t.Fatalf("ToServer box = %v, want s1 alone", msgs)
	}
	if msgs := readMsgs(t, b, s2, sessions.ToClient, 0); len(msgs) != 1 || string(msgs[0].Data) != "other" {
		t.Fatalf("the other session's box = %v, want its message alone", msgs)
	}
}

func testConcurrentAppends(t *testing.T, open logOpener) {
	a, b := open(t)
	s := rand.Text()
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		l := a
		if w%2 == 1 {
			l = b
		}
		wg.Go(func() {
			for i := range each {
				if _, err := l.Append(context.Background(), s, sessions.ToServer, fmt.Appendf(nil, "%d-%d", w, i)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Append: %v", err)
	}
	msgs := readMsgs(t, a, s, sessions.ToServer, 0)
	if len(msgs) != writers*each {
		t.Fatalf("Read = %d messages, want %d", len(msgs), writers*each)
	}
	seen := make(map[string]bool)
	for i, m := range msgs {
		if m.Seq != uint64(i+1) {
			t.Fatalf("message %d is numbered %d: numbers must run without gaps", i+1, m.Seq)
		}
		seen[string(m.Data)] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct messages kept of %d appended", len(seen), writers*each)
	}
}

func testTrimmed(t *testing.T, open logOpener) {
	a, b := open(t)
	s := rand.Text()
	total := sessions.KeepMessages + 5
	for i := range total {
		appendMsg(t, a, s, sessions.ToClient, fmt.Sprint(i+1))
	}
	// The newest KeepMessages are there.
	after := uint64(total - sessions.KeepMessages)
	msgs := readMsgs(t, b, s, sessions.ToClient, after)
	if len(msgs) != sessions.KeepMessages || msgs[0].Seq != after+1 || string(msgs[len(msgs)-1].Data) != fmt.Sprint(total) {
		t.Fatalf("Read after %d = %d messages from %v, want the newest %d", after, len(msgs), msgs[0].Seq, sessions.KeepMessages)
	}
	// Reading from the start may find the oldest gone; if so, it says so.
	msgs, err := b.Read(context.Background(), s, sessions.ToClient, 0)
	switch {
	case errors.Is(err, sessions.ErrTrimmed):
	case err != nil:
		t.Fatalf("Read after 0 of a trimmed box: %v, want ErrTrimmed or every message", err)
	case len(msgs) != total || msgs[0].Seq != 1:
		t.Fatalf("Read after 0 of a trimmed box returned %d messages without ErrTrimmed; want ErrTrimmed or all %d", len(msgs), total)
	}
}

func testReader(t *testing.T, open logOpener) {
	a, b := open(t)
	s := rand.Text()
	ctx := context.Background()
	now := epoch
	if ok, err := b.HasReader(ctx, s, now); err != nil || ok {
		t.Fatalf("HasReader with none set = %v, %v; want false, nil", ok, err)
	}
	if err := a.SetReader(ctx, s, "i1", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.HasReader(ctx, s, now); err != nil || !ok {
		t.Fatalf("HasReader before the reader's time = %v, %v; want true, nil", ok, err)
	}
	if ok, err := b.HasReader(ctx, s, now.Add(2*time.Minute)); err != nil || ok {
		t.Fatalf("HasReader past the reader's time = %v, %v; want false, nil", ok, err)
	}
	// Another instance takes the stream over; the first clearing its own
	// record does not clear the new one.
	if err := b.SetReader(ctx, s, "i2", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := a.SetReader(ctx, s, "i1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.HasReader(ctx, s, now); err != nil || !ok {
		t.Fatalf("HasReader after a former reader cleared = %v, %v; want true, nil", ok, err)
	}
	if err := b.SetReader(ctx, s, "i2", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.HasReader(ctx, s, now); err != nil || ok {
		t.Fatalf("HasReader after the reader cleared = %v, %v; want false, nil", ok, err)
	}
}

func testDeleteMessages(t *testing.T, open logOpener) {
	a, b := open(t)
	s, other := rand.Text(), rand.Text()
	ctx := context.Background()
	appendMsg(t, a, s, sessions.ToClient, "c")
	appendMsg(t, a, s, sessions.ToServer, "s")
	appendMsg(t, a, other, sessions.ToClient, "kept")
	if err := a.SetReader(ctx, s, "i1", epoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, s); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	for _, box := range []sessions.Box{sessions.ToClient, sessions.ToServer} {
		if msgs := readMsgs(t, b, s, box, 0); len(msgs) != 0 {
			t.Fatalf("box %d after Delete = %v, want empty", box, msgs)
		}
		if last, err := b.Last(ctx, s, box); err != nil || last != 0 {
			t.Fatalf("Last of box %d after Delete = %d, %v; want 0", box, last, err)
		}
	}
	if ok, err := b.HasReader(ctx, s, epoch); err != nil || ok {
		t.Fatalf("HasReader after Delete = %v, %v; want false", ok, err)
	}
	if msgs := readMsgs(t, b, other, sessions.ToClient, 0); len(msgs) != 1 || !bytes.Equal(msgs[0].Data, []byte("kept")) {
		t.Fatalf("another session's box after Delete = %v, want its message", msgs)
	}
	if err := a.Delete(ctx, rand.Text()); err != nil {
		t.Fatalf("Delete of a session with no messages: %v, want nil", err)
	}
}

func testMessagesCancelled(t *testing.T, open logOpener) {
	l, _ := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := rand.Text()
	if _, err := l.Append(ctx, s, sessions.ToClient, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := l.Read(ctx, s, sessions.ToClient, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := l.Last(ctx, s, sessions.ToClient); !errors.Is(err, context.Canceled) {
		t.Errorf("Last with a cancelled context: %v, want context.Canceled", err)
	}
	if err := l.SetReader(ctx, s, "i", epoch); !errors.Is(err, context.Canceled) {
		t.Errorf("SetReader with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := l.HasReader(ctx, s, epoch); !errors.Is(err, context.Canceled) {
		t.Errorf("HasReader with a cancelled context: %v, want context.Canceled", err)
	}
	if err := l.Delete(ctx, s); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete with a cancelled context: %v, want context.Canceled", err)
	}
}

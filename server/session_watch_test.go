package server

import (
	"io"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// A session's watched stream lets its connection ask what the stream has
// read ahead exactly when the stream itself can say (jsonrpc.MayWait), and
// answers as the stream does: without it, every store wait of a stdio
// session would hand reading off.
func TestTheWatchedStreamTellsWhatTheStreamHasReadAhead(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	stdio := transport.NewStdio(r, io.Discard)
	ss := &Session{stream: stdio}
	watched := ss.watch()
	ahead, ok := watched.(jsonrpc.ReadAheadStream)
	if !ok {
		t.Fatalf("the watch over a stdio stream is a %T, which does not say what it has read ahead", watched)
	}
	go io.WriteString(w, `{"jsonrpc":"2.0","method":"a"}`+"\n"+`{"jsonrpc":"2.0","method":"b"}`+"\n")
	if _, err := stdio.Read(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := ahead.Buffered(), stdio.Buffered(); got != want || got == 0 {
		t.Errorf("the watch says %d bytes are read ahead, the stream %d; want the stream's, above 0", got, want)
	}

	client, server := transport.Pipe()
	defer client.Close()
	if watched, ok := (&Session{stream: server}).watch().(jsonrpc.ReadAheadStream); ok {
		t.Errorf("the watch over a stream that cannot say what it has read ahead is a %T, which claims to", watched)
	}
}

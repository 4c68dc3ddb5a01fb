package tasks_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestSeqCursorRoundTrips(t *testing.T) {
	const p = tasks.SeqCursor("q")
	for _, seq := range []int64{1, 35, 36, 1 << 40} {
		if got, ok := p.Decode(p.Encode(seq)); !ok || got != seq {
			t.Errorf("Decode(Encode(%d)) = %d, %v", seq, got, ok)
		}
	}
	for _, bad := range []string{"", "q", "r1", "q-1", "q0", "qzzzzzzzzzzzzzzzzzzz", "q!"} {
		if _, ok := p.Decode(bad); ok {
			t.Errorf("Decode(%q) accepted a cursor the store did not make", bad)
		}
	}
}

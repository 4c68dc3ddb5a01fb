package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// A peer's row whose server stops answering is measured once more; weft's
// row, or a failure of another kind, is not.
func TestOnlyAPeersStalledRowIsMeasuredAgain(t *testing.T) {
	stall := fmt.Errorf("tools/call (id 7) got no answer: %w", loadgen.ErrStalled)
	broken := errors.New("the answer did not echo the text")
	for _, tc := range []struct {
		name         string
		impl         string
		outcomes     []error
		wantAttempts int
		wantStalled  bool
		wantErr      error
	}{
		{"peer stalls once", "gosdk", []error{stall, nil}, 2, true, nil},
		{"peer stalls twice", "gosdk", []error{stall, stall}, 2, true, loadgen.ErrStalled},
		{"peer fails otherwise", "gosdk", []error{broken}, 1, false, broken},
		{"weft stalls", subject, []error{stall}, 1, false, loadgen.ErrStalled},
		{"peer answers", "mcpgo", []error{nil}, 1, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attempts := 0
			_, stalled, err := measureAgainIfPeerStalls(rowKey{Impl: tc.impl}, func() (rowResult, error) {
				attempts++
				return rowResult{}, tc.outcomes[attempts-1]
			})
			if attempts != tc.wantAttempts {
				t.Errorf("measured %d times, want %d", attempts, tc.wantAttempts)
			}
			if (stalled != nil) != tc.wantStalled {
				t.Errorf("stalled = %v, want a stall reported: %v", stalled, tc.wantStalled)
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

package millis

import (
	"math"
	"testing"
	"time"
)

// TestDurationSaturatesInsteadOfWrapping checks counts on both sides of
// the largest that fits, and ordinary ones.
func TestDurationSaturatesInsteadOfWrapping(t *testing.T) {
	largest := int64(math.MaxInt64 / int64(time.Millisecond))
	for _, c := range []struct {
		ms   int64
		want time.Duration
	}{
		{0, 0},
		{1500, 1500 * time.Millisecond},
		{-20, -20 * time.Millisecond},
		{largest, time.Duration(largest) * time.Millisecond},
		{largest + 1, math.MaxInt64},
		{18446744073710, math.MaxInt64}, // wrapped to +448µs before
		{math.MaxInt64, math.MaxInt64},
		{-largest, -time.Duration(largest) * time.Millisecond},
		{-largest - 1, math.MinInt64},
		{math.MinInt64, math.MinInt64},
	} {
		if got := Duration(c.ms); got != c.want {
			t.Errorf("Duration(%d) = %v, want %v", c.ms, got, c.want)
		}
	}
}

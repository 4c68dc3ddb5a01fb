// Package millis converts the durations peers send in milliseconds (task
// TTLs and poll intervals, SSE retry intervals) to time.Duration without
// wrapping around: a count too large for nanoseconds in an int64 (about
// 292 years) would otherwise come out as a short or negative duration.
package millis

import (
	"math"
	"time"
)

// Duration returns ms milliseconds as a time.Duration, saturated at the
// largest (or smallest) duration when it does not fit.
func Duration(ms int64) time.Duration {
	const unit = int64(time.Millisecond)
	switch {
	case ms > math.MaxInt64/unit:
		return math.MaxInt64
	case ms < math.MinInt64/unit:
		return math.MinInt64
	}
	return time.Duration(ms * unit)
}

package main

import (
	"fmt"
	"time"
)

// metric is one figure of a row.
type metric struct {
	// Name heads its column.
	Name string
	// Value extracts it from a row's result.
	Value func(rowResult) float64
	// Format prints a value.
	Format func(float64) string
}

// echoMetrics lists the figures of the echo rows in report order.
func echoMetrics() []metric {
	return []metric{
		{Name: "req/s", Value: perSecond, Format: formatRate},
		{Name: "p50", Value: func(r rowResult) float64 { return float64(r.P50) }, Format: formatDuration},
		{Name: "p99", Value: p99, Format: formatDuration},
		{Name: "server CPU/req", Value: cpu, Format: formatDuration},
		{Name: "server peak RSS", Value: func(r rowResult) float64 { return float64(r.PeakRSS) }, Format: formatBytes},
	}
}

// formatRate prints requests per second without decimals.
func formatRate(v float64) string { return fmt.Sprintf("%.0f", v) }

// formatCount prints a mean count to two decimals.
func formatCount(v float64) string { return fmt.Sprintf("%.2f", v) }

// formatTimes prints a ratio as a multiple.
func formatTimes(v float64) string { return fmt.Sprintf("%.2f×", v) }

// formatDuration prints nanoseconds in µs below a millisecond, else in ms.
func formatDuration(ns float64) string {
	d := time.Duration(ns)
	if d < time.Millisecond {
		return fmt.Sprintf("%.1f µs", ns/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2f ms", ns/float64(time.Millisecond))
}

// formatBytes prints a byte count in B, KiB or MiB.
func formatBytes(b float64) string {
	switch {
	case b >= 1<<20 || b <= -(1<<20):
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10 || b <= -(1<<10):
		return fmt.Sprintf("%.2f KiB", b/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", b)
	}
}

// formatRatio prints a/b, or "n/a" when b is not positive.
func formatRatio(a, b float64) string {
	if b <= 0 {
		return "n/a"
	}
	return formatTimes(a / b)
}

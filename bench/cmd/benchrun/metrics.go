package main

import (
	"fmt"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// metric is one figure of a throughput run.
type metric struct {
	// Name heads its column.
	Name string
	// HigherIsBetter is true for throughput, false for costs.
	HigherIsBetter bool
	// Value extracts it from a run's result.
	Value func(loadgen.Result) float64
	// Format prints a value.
	Format func(float64) string
}

// metrics lists the throughput figures in report order.
func metrics() []metric {
	return []metric{
		{Name: "req/s", HigherIsBetter: true, Value: func(r loadgen.Result) float64 { return r.PerSecond }, Format: formatRate},
		{Name: "p50", Value: func(r loadgen.Result) float64 { return float64(r.P50) }, Format: formatDuration},
		{Name: "p99", Value: func(r loadgen.Result) float64 { return float64(r.P99) }, Format: formatDuration},
		{Name: "server CPU/req", Value: func(r loadgen.Result) float64 { return float64(r.CPUPerRequest) }, Format: formatDuration},
		{Name: "server peak RSS", Value: func(r loadgen.Result) float64 { return float64(r.PeakRSS) }, Format: formatBytes},
	}
}

// formatRate prints requests per second without decimals.
func formatRate(v float64) string { return fmt.Sprintf("%.0f", v) }

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
	return fmt.Sprintf("%.2f×", a/b)
}

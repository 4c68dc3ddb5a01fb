package main

import (
	"slices"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// settings are the run's parameters.
type settings struct {
	Rounds   int
	Warmup   time.Duration
	Window   time.Duration
	Sessions int
}

// throughputRun is one cell measured for one implementation in one round.
type throughputRun struct {
	Round  int
	Impl   string
	Cell   cell
	Result loadgen.Result
}

// sessionRun is one idle-session measurement.
type sessionRun struct {
	Round  int
	Impl   string
	Result sessionResult
}

// results is everything a run produced; it is written raw as JSON and
// summarised as RESULTS.md.
type results struct {
	Started    time.Time
	Elapsed    time.Duration
	Settings   settings
	Machine    machine
	Impls      []implementation
	Binaries   map[string]binary
	Throughput []throughputRun
	Sessions   []sessionRun
}

// has reports whether implementation name took part in the run.
func (r *results) has(name string) bool {
	return slices.ContainsFunc(r.Impls, func(i implementation) bool { return i.Name == name })
}

// throughputMedian is the median over rounds of value for impl in cell.
func (r *results) throughputMedian(impl string, c cell, value func(loadgen.Result) float64) float64 {
	var xs []float64
	for _, run := range r.Throughput {
		if run.Impl == impl && run.Cell == c {
			xs = append(xs, value(run.Result))
		}
	}
	return median(xs)
}

// sessionMedian is the median over rounds of the memory per idle session of impl.
func (r *results) sessionMedian(impl string, value func(sessionResult) float64) float64 {
	var xs []float64
	for _, run := range r.Sessions {
		if run.Impl == impl {
			xs = append(xs, value(run.Result))
		}
	}
	return median(xs)
}

// median returns the middle of xs (the mean of the middle two for an even
// count), or 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

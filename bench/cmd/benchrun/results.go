package main

import (
	"fmt"
	"path/filepath"
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
	// ProfileDir, when set, is where the servers write CPU profiles.
	ProfileDir string `json:",omitempty"`
}

// profile returns the CPU profile file of one row, or "" when not profiling.
func (s settings) profile(load string, impl implementation, c cell, round int) string {
	if s.ProfileDir == "" {
		return ""
	}
	return filepath.Join(s.ProfileDir, fmt.Sprintf("%s-%s-%s-%d-round%d.prof", impl.Name, load, c.Transport, c.InFlight, round+1))
}

// throughputRun is one cell measured for one implementation in one round.
type throughputRun struct {
	Round  int
	Impl   string
	Cell   cell
	Result loadgen.Result
}

// taskRun is one cell of the task life figure measured for one
// implementation in one round.
type taskRun struct {
	Round  int
	Impl   string
	Cell   cell
	Result rowResult
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
	TaskLife   []taskRun
	Sessions   []sessionRun
	// Findings is the hand-written analysis in findings.md (what profiles
	// showed, what was fixed, what is left), included in the report.
	Findings string `json:"-"`
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

// taskMedian is the median over rounds of value for impl's task lives in cell.
func (r *results) taskMedian(impl string, c cell, value func(rowResult) float64) float64 {
	var xs []float64
	for _, run := range r.TaskLife {
		if run.Impl == impl && run.Cell == c {
			xs = append(xs, value(run.Result))
		}
	}
	return median(xs)
}

// taskImpls lists the run's implementations that have tasks, in table order.
func (r *results) taskImpls() []implementation {
	return slices.DeleteFunc(slices.Clone(r.Impls), func(i implementation) bool { return i.TaskArgs == nil })
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

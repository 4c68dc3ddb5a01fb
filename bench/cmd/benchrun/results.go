package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// settings are the run's parameters.
type settings struct {
	Rounds   int
	Warmup   time.Duration
	Window   time.Duration
	Sessions int
	// Sections and Stores are what -rows and -store selected.
	Sections []section
	Stores   []string
	// ProfileDir, when set, is where the servers write CPU profiles.
	ProfileDir string `json:",omitempty"`
}

// profile returns the CPU profile file of one row, or "" when not profiling.
func (s settings) profile(k rowKey, round int) string {
	if s.ProfileDir == "" {
		return ""
	}
	name := k.Impl
	if k.Variant != "" {
		name = k.Variant
	}
	if k.Store != "" {
		name += "-" + k.Store
	}
	if k.Surface != "" {
		name += "-" + string(k.Surface)
	}
	return filepath.Join(s.ProfileDir, fmt.Sprintf("%s-%s-%s-%d-round%d.prof", safeName(name), k.Section, k.Cell.Transport, k.Cell.InFlight, round+1))
}

// safeName makes a row name fit a file name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// rowResult is one row measured.
type rowResult struct {
	loadgen.Result
	// PollsPerTask and RequestsPerTask are the mean tasks/get and the mean
	// requests of every kind per task (task lives only).
	PollsPerTask    float64 `json:",omitzero"`
	RequestsPerTask float64 `json:",omitzero"`
}

// rowRun is one row measured in one round.
type rowRun struct {
	Round  int
	Key    rowKey
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
	Started  time.Time
	Elapsed  time.Duration
	Settings settings
	Machine  machine
	// LoadAverageEnd is the load average when the last row had run.
	LoadAverageEnd string
	// RoundLoads are the load averages at the end of each round.
	RoundLoads []string `json:",omitempty"`
	Impls      []implementation
	Binaries   map[string]binary
	Runs       []rowRun
	Sessions   []sessionRun
	// Trips are the bare client's round trips to the durable stores,
	// measured in each round before its task lives.
	Trips []tripRun `json:",omitempty"`
	// Remeasured names the rows of other libraries measured again on a
	// fresh server after their first server stopped answering, with why.
	Remeasured []string `json:",omitempty"`
	// Findings is the hand-written analysis in findings.md (what profiles
	// showed, what was fixed, what is left), included in the report.
	Findings string `json:"-"`
}

// has reports whether implementation name took part in the run.
func (r *results) has(name string) bool {
	return slices.ContainsFunc(r.Impls, func(i implementation) bool { return i.Name == name })
}

// impl returns the run's implementation named name.
func (r *results) impl(name string) (implementation, bool) {
	i := slices.IndexFunc(r.Impls, func(i implementation) bool { return i.Name == name })
	if i < 0 {
		return implementation{}, false
	}
	return r.Impls[i], true
}

// ran reports whether row k was measured.
func (r *results) ran(k rowKey) bool {
	return slices.ContainsFunc(r.Runs, func(run rowRun) bool { return run.Key == k })
}

// byRound returns the results of row k, by round.
func (r *results) byRound(k rowKey) map[int]rowResult {
	out := map[int]rowResult{}
	for _, run := range r.Runs {
		if run.Key == k {
			out[run.Round] = run.Result
		}
	}
	return out
}

// figure is the summary over rounds of value for row k.
func (r *results) figure(k rowKey, value func(rowResult) float64) summary {
	var xs []float64
	for _, x := range r.byRound(k) {
		xs = append(xs, value(x))
	}
	return summarize(xs)
}

// combine is the summary over rounds of f of rows a and b in the same
// round: rows of one round ran side by side, so a ratio within a round is
// less exposed to drift on the machine than a ratio of medians. Rounds
// missing either row, or where f says its value is undefined, are left out.
func (r *results) combine(a, b rowKey, f func(a, b rowResult) (float64, bool)) summary {
	bs := r.byRound(b)
	var xs []float64
	for round, x := range r.byRound(a) {
		if y, ok := bs[round]; ok {
			if v, ok := f(x, y); ok {
				xs = append(xs, v)
			}
		}
	}
	return summarize(xs)
}

// ratio is the summary over rounds of value of row a divided by value of
// row b in the same round (see combine).
func (r *results) ratio(a, b rowKey, value func(rowResult) float64) summary {
	return r.combine(a, b, func(x, y rowResult) (float64, bool) {
		d := value(y)
		return value(x) / d, d > 0
	})
}

// sessionFigure is the summary over rounds of value for impl's idle sessions.
func (r *results) sessionFigure(impl string, value func(sessionResult) float64) summary {
	var xs []float64
	for _, run := range r.Sessions {
		if run.Impl == impl {
			xs = append(xs, value(run.Result))
		}
	}
	return summarize(xs)
}

// echoKey is the key of impl's plain echo row in c.
func echoKey(impl string, c cell) rowKey { return rowKey{Section: sectionEcho, Impl: impl, Cell: c} }

// modernEchoKey names impl's modern-era echo row (its sectionModern
// variant's) in cell c; false when impl has none.
func (r *results) modernEchoKey(impl string, c cell) (rowKey, bool) {
	i, ok := r.impl(impl)
	if !ok {
		return rowKey{}, false
	}
	for _, v := range i.Variants {
		if v.Section == sectionModern {
			return rowKey{Section: sectionModern, Impl: impl, Variant: v.Name, Cell: c}, true
		}
	}
	return rowKey{}, false
}

// plainCallKey names the plain-call row a task life is set beside: calls of
// the life's own era, the modern echo row for the extension surface when it
// ran (each of its requests carries the _meta a modern call carries), else
// the echo row. modern reports which.
func (r *results) plainCallKey(life rowKey) (k rowKey, modern bool) {
	if m, ok := r.modernEchoKey(life.Impl, life.Cell); ok && life.Surface == mcpwire.ExtensionTasks && r.ran(m) {
		return m, true
	}
	return echoKey(life.Impl, life.Cell), false
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// fakeResults builds a run in which every implementation has the same
// figures in every cell, varied across rounds around cpu (so medians matter),
// and the given memory per idle session.
func fakeResults(names []string, cpu map[string]time.Duration, perSession map[string]float64) *results {
	r := &results{
		Started:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Settings: settings{Rounds: 3, Warmup: time.Second, Window: 2 * time.Second, Sessions: 1000},
		Binaries: map[string]binary{},
	}
	for _, name := range names {
		r.Impls = append(r.Impls, implementation{Name: name, Package: "./servers/" + name, Setup: name + " setup"})
	}
	for round, spread := range []time.Duration{-1, 0, 5} { // median is the middle round
		for _, name := range names {
			for _, c := range cells() {
				d := cpu[name] + spread*time.Microsecond
				r.Throughput = append(r.Throughput, throughputRun{Round: round + 1, Impl: name, Cell: c, Result: loadgen.Result{
					PerSecond: float64(time.Second / d), P50: 4 * d, P99: 10 * d, CPUPerRequest: d, PeakRSS: 10 << 20,
				}})
			}
			r.Sessions = append(r.Sessions, sessionRun{Round: round + 1, Impl: name, Result: sessionResult{
				Sessions: 1000, Before: 8 << 20, After: 8<<20 + int64(perSession[name]*1000), PerSession: perSession[name],
			}})
		}
	}
	return r
}

func TestReportOfAPartialRunSaysSoAndSkipsTargets(t *testing.T) {
	r := fakeResults([]string{"gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"gosdk": 200 * time.Microsecond, "mcpgo": 60 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"gosdk": 8000, "mcpgo": 9000, "bare": 200})
	var b strings.Builder
	if err := writeReport(&b, r); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	for _, want := range []string{
		"**Partial run: weft is not in it.**",
		"| stdio | 32 | mcpgo | 16666 | 240.0 µs | 600.0 µs | 60.0 µs | 10.0 MiB |", // medians, not the spread rounds
		"| row | gosdk/mcpgo | gosdk/bare | mcpgo/bare |",
		"| http, 1 in flight | 3.33× | 10.00× | 3.00× |", // CPU/req ratios
		"| bare | `-http ADDR` | 8.0 MiB | 8.2 MiB | 200 B | 0.03× | 0.02× | |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "## Targets") {
		t.Error("a run without weft evaluated the targets")
	}
}

func TestReportEvaluatesTargetsWhenWeftRan(t *testing.T) {
	r := fakeResults([]string{"weft", "gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "gosdk": 200 * time.Microsecond, "mcpgo": 60 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "mcpgo": 9000, "bare": 200})
	var b strings.Builder
	if err := writeReport(&b, r); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	if strings.Contains(report, "Partial run") {
		t.Error("a run with weft is called partial")
	}
	// Per cell: CPU vs bare (1.25×, met), p99 vs bare (met), ahead of gosdk
	// and of mcpgo (met); stdio cells also: 1/10 of gosdk (0.125, missed)
	// and 1/3 of mcpgo (0.417, missed). Plus the session target (met).
	if want := "## Targets: 17 of 21 met"; !strings.Contains(report, want) {
		t.Errorf("report lacks %q:\n%s", want, report)
	}
	for _, want := range []string{
		"| stdio, 1 in flight: server CPU/req ≤ 1/10 of gosdk | 0.12× (25% over) | no |",
		"| stdio, 1 in flight: server CPU/req ≤ 1/3 of mcpgo | 0.42× (25% over) | no |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	// With the peers within 10× and 3× of bare, those targets need weft
	// below the floor: the report says so.
	r = fakeResults([]string{"weft", "gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "gosdk": 150 * time.Microsecond, "mcpgo": 40 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "mcpgo": 9000, "bare": 200})
	b.Reset()
	if err := writeReport(&b, r); err != nil {
		t.Fatal(err)
	}
	// A miss by a little says so to a tenth of a percent.
	if want := "| http, 1 in flight: server CPU/req ≤ 1.5× bare | 1.25× | yes |"; !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q", want)
	}
	for _, want := range []string{
		"| stdio, 1 in flight: server CPU/req ≤ 1/10 of gosdk | 0.17× (67% over); it needs 15.0 µs, 0.75× bare's 20.0 µs, since gosdk is only 7.50× bare | no |",
		"| stdio, 1 in flight: server CPU/req ≤ 1/3 of mcpgo | 0.62× (88% over); it needs 13.3 µs, 0.67× bare's 20.0 µs, since mcpgo is only 2.00× bare | no |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// A target met below the bare floor is just met, with no note.
func TestTargetMetBelowTheFloorHasNoNote(t *testing.T) {
	r := fakeResults([]string{"weft", "gosdk", "bare"},
		map[string]time.Duration{"weft": 8 * time.Microsecond, "gosdk": 90 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "bare": 200})
	for _, c := range evaluateTargets(r) {
		if strings.Contains(c.Target, "1/10 of gosdk") && (!c.Met || strings.Contains(c.Measured, "needs")) {
			t.Errorf("%s: measured %q, met %v; want met with no note", c.Target, c.Measured, c.Met)
		}
	}
	if got := formatOver(1.0003); got != "0.0%" {
		t.Errorf("formatOver(1.0003) = %q", got)
	}
}

func TestMedianOfOddAndEvenCounts(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestReportIncludesFindingsAndTaskLife(t *testing.T) {
	r := fakeResults([]string{"weft", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "bare": 200})
	r.Impls[0].TaskArgs = []string{"-tasks"}
	for round := range 3 {
		for _, c := range cells() {
			r.TaskLife = append(r.TaskLife, taskRun{Round: round + 1, Impl: "weft", Cell: c, Result: rowResult{
				Result:       loadgen.Result{PerSecond: 5000, P50: time.Millisecond, P99: 3 * time.Millisecond, CPUPerRequest: 100 * time.Microsecond},
				PollsPerTask: 1.5,
			}})
		}
	}
	r.Findings = "The profile showed X; Y was fixed."
	var b strings.Builder
	if err := writeReport(&b, r); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	for _, want := range []string{
		"## Task life (memory store, medians)",
		"| transport | in flight | implementation | tasks/s | p50 | p99 | server CPU/task | polls/task | vs weft echo call | vs bare echo call |",
		"| http | 32 | weft (`-tasks`) | 5000 | 1.00 ms | 3.00 ms | 100.0 µs | 1.50 | 4.00× | 5.00× |",
		"## Profile findings",
		"The profile showed X; Y was fixed.",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

// The raw results file holds everything the report needs: a report written
// again from it (benchrun -from) is the report of the run.
func TestReportFromRawResultsIsTheSame(t *testing.T) {
	r := fakeResults([]string{"weft", "gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "gosdk": 200 * time.Microsecond, "mcpgo": 60 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "mcpgo": 9000, "bare": 200})
	r.Impls[0].TaskArgs = []string{"-tasks"}
	r.TaskLife = append(r.TaskLife, taskRun{Round: 1, Impl: "weft", Cell: cells()[0], Result: rowResult{PollsPerTask: 1.25}})
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back results
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	var want, got strings.Builder
	if err := writeReport(&want, r); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(&got, &back); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("report from raw results differs:\n%s\nwant:\n%s", got.String(), want.String())
	}
}

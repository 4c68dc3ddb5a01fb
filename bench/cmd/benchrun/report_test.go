package main

import (
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
	if want := "| stdio, 1 in flight: server CPU/req ≤ 1/10 of gosdk | 0.12× | no |"; !strings.Contains(report, want) {
		t.Errorf("report lacks %q:\n%s", want, report)
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

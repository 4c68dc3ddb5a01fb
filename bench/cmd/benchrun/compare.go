package main

import (
	"fmt"
	"io"
	"slices"
)

// difference is a figure of one row whose ranges over the rounds of two
// runs do not overlap: one run does not reproduce the other.
type difference struct {
	Row, Figure   string
	First, Second summary
	format        func(float64) string
}

// comparedMetrics are the figures compareRuns checks in every row:
// throughput, the server's and store's CPU per operation and the store
// round trips (it also checks the bare round trips' CPU). Latency
// percentiles are left out; they move with the machine's load more than
// the costs do.
func comparedMetrics() []metric {
	return []metric{
		{Name: "per second", Value: perSecond, Format: formatRate},
		{Name: "server CPU/op", Value: cpu, Format: formatDuration},
		{Name: "store CPU/op", Value: func(x rowResult) float64 { return float64(x.StoreCPUPerRequest) }, Format: formatDuration},
		{Name: "store round trips/op", Value: roundTripsPerOp, Format: formatCount},
	}
}

// compareRuns lists the figures of rows both runs measured whose ranges do
// not overlap, and the targets met in one run and missed in the other:
// "not reproduced" when a run's rounds all agreed on its verdict, else
// named as split in both runs.
func compareRuns(a, b *results) ([]difference, []string) {
	var diffs []difference
	var keys []rowKey
	for _, run := range a.Runs {
		if !slices.Contains(keys, run.Key) && b.ran(run.Key) {
			keys = append(keys, run.Key)
		}
	}
	for _, k := range keys {
		for _, m := range comparedMetrics() {
			x, y := a.figure(k, m.Value), b.figure(k, m.Value)
			if x.Max == 0 && y.Max == 0 {
				continue // not measured for this row
			}
			if x.Max < y.Min || y.Max < x.Min {
				diffs = append(diffs, difference{Row: k.String(), Figure: m.Name, First: x, Second: y, format: m.Format})
			}
		}
	}
	for _, store := range tripStores {
		x, y := a.tripCPU(store), b.tripCPU(store)
		if x.N > 0 && y.N > 0 && (x.Max < y.Min || y.Max < x.Min) {
			diffs = append(diffs, difference{Row: "the bare round trip to " + store, Figure: "CPU/trip", First: x, Second: y, format: formatDuration})
		}
	}
	first := map[string]targetCheck{}
	for _, c := range evaluateTargets(a) {
		first[c.Target] = c
	}
	var verdicts []string
	for _, c := range evaluateTargets(b) {
		was, ok := first[c.Target]
		if !ok || was.Met == c.Met {
			continue
		}
		// Two runs whose rounds both split on a target make no claim
		// either run fails to reproduce: each said another run may go the
		// other way.
		if was.Split && c.Split {
			verdicts = append(verdicts, fmt.Sprintf("%s: split between rounds in both runs, met on the median in one (%s in the second)", c.Target, c.Measured))
			continue
		}
		verdicts = append(verdicts, fmt.Sprintf("not reproduced: %s: met in one run, missed in the other (%s in the second)", c.Target, c.Measured))
	}
	return diffs, verdicts
}

// writeComparison writes what compareRuns finds, for a person to read.
func writeComparison(w io.Writer, a, b *results) error {
	diffs, verdicts := compareRuns(a, b)
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	p("first run %s (load average %s → %s), second run %s (load average %s → %s)\n",
		a.Started.UTC().Format("2006-01-02 15:04"), a.Machine.LoadAverage, a.LoadAverageEnd,
		b.Started.UTC().Format("2006-01-02 15:04"), b.Machine.LoadAverage, b.LoadAverageEnd)
	if len(diffs) == 0 && len(verdicts) == 0 {
		p("every figure's range overlaps between the runs, and every target has the same verdict\n")
		return err
	}
	for _, d := range diffs {
		p("not reproduced: %s: %s is %s in the first run, %s in the second\n", d.Row, d.Figure, d.First.format(d.format), d.Second.format(d.format))
	}
	for _, v := range verdicts {
		p("%s\n", v)
	}
	return err
}

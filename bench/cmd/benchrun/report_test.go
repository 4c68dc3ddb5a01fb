package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/placement"
)

// spreads vary a figure across three rounds around its middle, so the
// median is the middle round's and the range shows.
var spreads = []time.Duration{-1, 0, 5}

// fakeResults builds a run in which every implementation has the same
// figures in every cell, varied across rounds around cpu (so medians
// matter), and the given memory per idle session.
func fakeResults(names []string, cpu map[string]time.Duration, perSession map[string]float64) *results {
	r := &results{
		Started:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Settings: settings{Rounds: 3, Warmup: time.Second, Window: 2 * time.Second, Sessions: 1000, Sections: sections(), Stores: placement.Kinds()},
		Binaries: map[string]binary{},
	}
	for _, name := range names {
		r.Impls = append(r.Impls, implementation{Name: name, Package: "./servers/" + name, Setup: name + " setup"})
	}
	for round, spread := range spreads {
		for _, name := range names {
			for _, c := range cells() {
				d := cpu[name] + spread*time.Microsecond
				r.Runs = append(r.Runs, rowRun{Round: round + 1, Key: echoKey(name, c), Result: rowResult{Result: loadgen.Result{
					PerSecond: float64(time.Second / d), P50: 4 * d, P99: 10 * d, CPUPerRequest: d, PeakRSS: 10 << 20,
				}}})
			}
			r.Sessions = append(r.Sessions, sessionRun{Round: round + 1, Impl: name, Result: sessionResult{
				Sessions: 1000, Before: 8 << 20, After: 8<<20 + int64(perSession[name]*1000), PerSession: perSession[name],
			}})
		}
	}
	return r
}

// report writes r's report.
func report(t *testing.T, r *results) string {
	t.Helper()
	var b strings.Builder
	if err := writeReport(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wantLines fails t for each of want that report lacks.
func wantLines(t *testing.T, report string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(report, w) {
			t.Errorf("report lacks %q:\n%s", w, report)
		}
	}
}

func TestOnlyTheLoadAtTheStartMakesARunLoaded(t *testing.T) {
	// The harness's own processes load the machine during the run.
	r := &results{Machine: machine{LogicalCPUs: 2, LoadAverage: "0.12 0.30 0.40"}, LoadAverageEnd: "3.85 3.22 4.17", RoundLoads: []string{"3.25 2.42 4.52"}}
	if load, busy := loadedAtStart(r); busy || load != 0.12 {
		t.Errorf("loadedAtStart = %v, %v; want 0.12, not loaded", load, busy)
	}
	r.Machine.LoadAverage = "1.60 1.00 1.00"
	if load, busy := loadedAtStart(r); !busy || load != 1.6 {
		t.Errorf("loadedAtStart = %v, %v; want 1.6, loaded (above 0.75 per CPU)", load, busy)
	}
	if _, busy := loadedAtStart(&results{Machine: machine{LoadAverage: "unknown (no /proc)"}}); busy {
		t.Error("an unreadable load average made the run loaded")
	}
}

func TestSummaryIsMinMedianMax(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want summary
		text string
	}{
		{nil, summary{}, "–"},
		{[]float64{7}, summary{7, 7, 7, 1}, "7"},
		{[]float64{3, 1, 2}, summary{1, 2, 3, 3}, "2 (1–3)"},
		{[]float64{4, 1, 3, 2}, summary{1, 2.5, 4, 4}, "2 (1–4)"}, // %.0f of 2.5
		{[]float64{5, 5}, summary{5, 5, 5, 2}, "5"},
	} {
		got := summarize(tc.xs)
		if got != tc.want {
			t.Errorf("summarize(%v) = %+v, want %+v", tc.xs, got, tc.want)
		}
		if text := got.format(formatRate); text != tc.text {
			t.Errorf("summary of %v prints %q, want %q", tc.xs, text, tc.text)
		}
	}
}

func TestReportOfAPartialRunSaysSoAndSkipsTargets(t *testing.T) {
	r := fakeResults([]string{"gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"gosdk": 200 * time.Microsecond, "mcpgo": 60 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"gosdk": 8000, "mcpgo": 9000, "bare": 200})
	r.Machine.LoadAverage, r.LoadAverageEnd, r.Machine.LogicalCPUs = "2.00 2.00 3.00", "4.00 5.00 6.00", 2
	r.RoundLoads = []string{"0.50 1.00 1.00", "1.20 1.00 1.00", "4.00 5.00 6.00"}
	got := report(t, r)
	wantLines(t, got,
		"**Partial run: weft is not in it.**",
		"| Load average (1, 5, 15 min) | at start 2.00 2.00 3.00; at end 4.00 5.00 6.00 |",
		"| Load average after each round | 0.50 1.00 1.00; 1.20 1.00 1.00; 4.00 5.00 6.00 |",
		"> **Loaded machine.** The 1-minute load average was 2.00 on 2 logical CPUs when the run started",
		// medians with the range of the rounds
		"| stdio | 32 | mcpgo | 16666 (15384–16949) | 240.0 µs (236.0 µs–260.0 µs) | 600.0 µs (590.0 µs–650.0 µs) | 60.0 µs (59.0 µs–65.0 µs) | 10.0 MiB |",
		"| row | gosdk/bare | mcpgo/bare |",
		// ratios round by round: 199/19, 200/20, 205/25 and 59/19, 60/20, 65/25
		"| http, 1 in flight | 10.00× (8.20×–10.47×) | 3.00× (2.60×–3.11×) |",
		"| bare | `-http ADDR` | 8.0 MiB | 8.2 MiB | 200 B |",
		"| `streamable.DefaultMaxSessions` | 10000 |",
	)
	if strings.Contains(got, "## Targets") {
		t.Error("a run without weft evaluated the targets")
	}
	if strings.Contains(got, "## Task life") || strings.Contains(got, "## OpenTelemetry") {
		t.Error("the report has sections for rows that did not run")
	}
}

func TestReportEvaluatesTargetsWhenWeftRan(t *testing.T) {
	r := fakeResults([]string{"weft", "gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "gosdk": 200 * time.Microsecond, "mcpgo": 60 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "mcpgo": 9000, "bare": 200})
	got := report(t, r)
	if strings.Contains(got, "Partial run") {
		t.Error("a run with weft is called partial")
	}
	// Per cell: CPU vs bare (1.25×, met), p99 vs bare (met), ahead of gosdk
	// and of mcpgo (met); stdio cells also 1/10 of gosdk and 1/3 of mcpgo
	// (both missed); http cells also ≤ 1.2× bare (1.25×, missed); the
	// stdio floor is not in the run. Plus the session target (met).
	wantLines(t, got,
		"## Targets: 17 of 23 met",
		"| issue 9 | stdio, 1 in flight: server CPU/req ≤ 1/10 of gosdk | 0.12× (0.12×–0.15×) (25% over) | no |",
		"| issue 19 | http, 32 in flight: server CPU/req ≤ 1.2× bare | 1.25× (1.20×–1.26×) (4.2% over) | no, met in some rounds |",
		"| issue 9 | memory per idle legacy HTTP session ≤ 2.00 KiB | 1.46 KiB | yes |",
	)
	// With the peers within 10× and 3× of bare, those targets need weft
	// below the floor: the report says so.
	r = fakeResults([]string{"weft", "gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "gosdk": 150 * time.Microsecond, "mcpgo": 40 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "mcpgo": 9000, "bare": 200})
	wantLines(t, report(t, r),
		"| issue 9 | http, 1 in flight: server CPU/req ≤ 1.5× bare | 1.25× (1.20×–1.26×) | yes |",
		"| issue 9 | stdio, 1 in flight: server CPU/req ≤ 1/10 of gosdk | 0.17× (0.16×–0.19×) (67% over); it needs 15.0 µs, 0.75× bare's 20.0 µs | no |",
	)
}

// A verdict says when the rounds disagreed, and the heading counts the
// verdicts every round agreed on apart from those it did not.
func TestVerdictSaysWhenTheRoundsDisagreed(t *testing.T) {
	// weft's rounds are w-1, w, w+5 µs against bare's 19, 20, 25 µs.
	for _, tc := range []struct {
		weft time.Duration
		want string
	}{
		{23 * time.Microsecond, "| yes |"},                       // 1.12×–1.16×
		{23900 * time.Nanosecond, "| yes, not in every round |"}, // 1.16×–1.21×, median 1.195×
		{25 * time.Microsecond, "| no, met in some rounds |"},    // 1.20×–1.26×, median 1.25×
		{30 * time.Microsecond, "(25% over) | no |"},             // 1.40×–1.53×
	} {
		r := fakeResults([]string{"weft", "bare"}, map[string]time.Duration{"weft": tc.weft, "bare": 20 * time.Microsecond}, map[string]float64{"weft": 1500, "bare": 200})
		var line string
		for l := range strings.Lines(report(t, r)) {
			if strings.Contains(l, "| http, 1 in flight: server CPU/req ≤ 1.2× bare |") {
				line = l
			}
		}
		if !strings.Contains(line, tc.want) {
			t.Errorf("weft at %v: the target's line is %q, want it to hold %q", tc.weft, line, tc.want)
		}
	}
	// Per cell: ≤ 1.5× bare and p99 ≤ 2× bare met in every round; HTTP ≤
	// 1.2× bare split (met on the median); the session target met.
	r := fakeResults([]string{"weft", "bare"}, map[string]time.Duration{"weft": 23900 * time.Nanosecond, "bare": 20 * time.Microsecond}, map[string]float64{"weft": 1500, "bare": 200})
	wantLines(t, report(t, r), "## Targets: 11 of 11 met (9 in every round); 0 missed in every round, 2 split between rounds")
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

// addTaskLives adds weft task lives on store and surface to r in every
// cell and round: cpu per task, 4 requests per task, perSecond tasks/s.
func addTaskLives(r *results, store string, s mcpwire.Surface, cpu time.Duration, perSecond float64) {
	for round := range spreads {
		for _, c := range cells() {
			r.Runs = append(r.Runs, rowRun{Round: round + 1, Key: rowKey{Section: sectionTasks, Impl: "weft", Store: store, Surface: s, Cell: c},
				Result: rowResult{
					Result: loadgen.Result{PerSecond: perSecond, P50: time.Millisecond, P99: 3 * time.Millisecond, CPUPerRequest: cpu,
						StoreCPUPerRequest: cpu / 2, StoreCommandsPerRequest: 7, StoreRoundTripsPerRequest: 9},
					PollsPerTask:    2,
					RequestsPerTask: 4,
				}})
		}
	}
}

func TestReportHasTaskLivesStoresAndTheirTargets(t *testing.T) {
	r := fakeResults([]string{"weft", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "bare": 200})
	addTaskLives(r, "memory", mcpwire.LegacyTasks, 100*time.Microsecond, 5000)
	addTaskLives(r, "redis", mcpwire.LegacyTasks, 200*time.Microsecond, 2000)
	r.Findings = "The profile showed X; Y was fixed."
	got := report(t, r)
	wantLines(t, got,
		"## Task life",
		// weft's echo CPU is 24, 25, 30 µs over the rounds: 100/(4×24), 100/(4×25), 100/(4×30)
		"| http | 32 | weft | memory | legacy | 5000 | 1.00 ms | 3.00 ms | 100.0 µs | 4.00 | 2.00 | 1.00× (0.83×–1.04×) | – | – | – |",
		"| http | 32 | weft | redis | legacy | 2000 | 1.00 ms | 3.00 ms | 200.0 µs | 4.00 | 2.00 | 2.00× (1.67×–2.08×) | 100.0 µs | 9.00 | 7.00 |",
		"| http | 32 | weft | redis | legacy | 0.40× | 2.00× | – |",
		"| issue 19 | http, 32 in flight, legacy tasks, memory: server CPU/task ≤ 1.5× as many plain calls as the life has requests | 1.00× (0.83×–1.04×) of 4.00 requests × CPU/call | yes |",
		"| issue 19 | http, legacy tasks, redis: tasks/s at 32 in flight ≥ at 1 | 2000 vs 2000 | yes |",
		"| issue 19 | http, 32 in flight, legacy tasks: redis tasks/s ≥ 0.50× the memory store's | 0.40× (20% short) | no |",
		"## Profile findings",
		"The profile showed X; Y was fixed.",
	)
	if strings.Contains(got, "extension tasks") {
		t.Error("targets were evaluated for a surface that did not run")
	}
}

func TestDurableCPUTargetsAloneInFlightSayTheirFloor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		trips []time.Duration // the bare round trip's CPU in rounds 1, 2, 3
		floor string
		above bool
		trip  string
	}{
		// (100 + 2×trip) / 100 round by round
		{"over the target", []time.Duration{50, 30, 40}, "1.80× (1.60×–2.00×)", true, "40.0 µs (30.0 µs–50.0 µs)"},
		{"under it", []time.Duration{10, 5, 20}, "1.20× (1.10×–1.40×)", false, "10.0 µs (5.0 µs–20.0 µs)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := fakeResults([]string{"weft", "bare"},
				map[string]time.Duration{"weft": 25 * time.Microsecond, "bare": 20 * time.Microsecond},
				map[string]float64{"weft": 1500, "bare": 200})
			addTaskLives(r, "memory", mcpwire.LegacyTasks, 100*time.Microsecond, 5000)
			addTaskLives(r, "redis", mcpwire.LegacyTasks, 200*time.Microsecond, 2000)
			for i, trip := range tc.trips {
				r.Trips = append(r.Trips, tripRun{Round: i + 1, Store: "redis", Cost: placement.TripCost{Trips: 1000, CPUPerTrip: trip * time.Microsecond}})
			}
			got := report(t, r)
			wantLines(t, got,
				"| stdio | 1 | weft | redis | legacy | 0.40× | 2.00× | "+tc.floor+" |",
				"| http | 32 | weft | redis | legacy | 0.40× | 2.00× | – |",
				"Its CPU per trip: redis "+tc.trip+".",
			)
			for _, c := range evaluateTargets(r) {
				if !strings.Contains(c.Target, "redis server CPU/task") {
					continue
				}
				alone := strings.Contains(c.Target, "1 in flight")
				if hasFloor := strings.Contains(c.Measured, "its floor, the memory store's life and 2 bare round trips"); hasFloor != alone {
					t.Errorf("%s: measured %q; want a floor only alone in flight", c.Target, c.Measured)
				}
				if alone && !strings.Contains(c.Measured, "is "+tc.floor) {
					t.Errorf("%s: measured %q; want the floor %s", c.Target, c.Measured, tc.floor)
				}
				if above := strings.Contains(c.Measured, "above the 1.50× the target allows"); above != (alone && tc.above) {
					t.Errorf("%s: measured %q; want it to say the floor is above the target: %v", c.Target, c.Measured, alone && tc.above)
				}
			}
		})
	}
}

func TestReportComparesVariantsWithThePlainRow(t *testing.T) {
	r := fakeResults([]string{"weft"}, map[string]time.Duration{"weft": 25 * time.Microsecond}, map[string]float64{"weft": 1500})
	r.Impls[0].Variants = implementations()[0].Variants
	for round, spread := range spreads {
		d := 50*time.Microsecond + 2*spread*time.Microsecond
		for _, v := range r.Impls[0].Variants {
			r.Runs = append(r.Runs, rowRun{Round: round + 1, Key: rowKey{Section: v.Section, Impl: "weft", Variant: v.Name, Store: v.Store, Cell: cell{transportHTTP, 1}},
				Result: rowResult{Result: loadgen.Result{PerSecond: 1000, P50: d, P99: d, CPUPerRequest: d,
					StoreCPUPerRequest: d / 5, StoreCommandsPerRequest: 1.5, StoreRoundTripsPerRequest: 0.95 + 0.1*float64(round),
					StoreRequestRoundTripsPerRequest: 0.9 + 0.1*float64(round), StoreBackgroundRoundTripsPerSecond: 50}}})
		}
	}
	wantLines(t, report(t, r),
		"## OpenTelemetry on a plain call (weft)",
		"| http | 1 | weft | 40000 (33333–41666) | 100.0 µs (96.0 µs–120.0 µs) | 250.0 µs (240.0 µs–300.0 µs) | 25.0 µs (24.0 µs–30.0 µs) | – | – | – | – | – |",
		"| http | 1 | weft, otel recording | 1000 | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | – | – | – | – | 2.00× |",
		"## Legacy HTTP sessions on a shared store (weft)",
		// the round trips of requests per request, and the background ones per second apart
		"| http | 1 | weft, sessions on redis | 1000 | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 10.0 µs (9.6 µs–12.0 µs) | 1.00 (0.90–1.10) | 50.00 | 1.50 | 2.00× |",
		"| http | 1 | weft, sessions on postgres | 1000 | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 10.0 µs (9.6 µs–12.0 µs) | – | – | – | 2.00× |",
		"| http | 1 | weft, sessions on sqlite | 1000 | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | – | – | – | – | 2.00× |",
		// one round trip per request at the median, the background ones apart: met
		"| issue 17 | http, 1 in flight: a request of a known session on redis makes ≤ 1 store round trip | 1.00 (0.90–1.10) round trips per request, counted by the server in serving requests (the expiry sweep's, in the background, apart) | yes, not in every round |",
	)

	// Results from before the background round trips were told apart give
	// all of them, and say so.
	for i := range r.Runs {
		r.Runs[i].Result.StoreRequestRoundTripsPerRequest, r.Runs[i].Result.StoreBackgroundRoundTripsPerSecond = 0, 0
	}
	wantLines(t, report(t, r),
		"| http | 1 | weft, sessions on redis | 1000 | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 50.0 µs (48.0 µs–60.0 µs) | 10.0 µs (9.6 µs–12.0 µs) | 1.05 (0.95–1.15) (background included) | – | 1.50 | 2.00× |",
		"| issue 17 | http, 1 in flight: a request of a known session on redis makes ≤ 1 store round trip | 1.05 (0.95–1.15) round trips per request, the expiry sweep's included (measured before they were told apart) | no, met in some rounds |",
	)
}

// The raw results file holds everything the report needs: a report written
// again from it (benchrun -from) is the report of the run.
func TestReportFromRawResultsIsTheSame(t *testing.T) {
	r := fakeResults([]string{"weft", "gosdk", "mcpgo", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "gosdk": 200 * time.Microsecond, "mcpgo": 60 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "gosdk": 8000, "mcpgo": 9000, "bare": 200})
	addTaskLives(r, "postgres", mcpwire.ExtensionTasks, 300*time.Microsecond, 900)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back results
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := report(t, &back), report(t, r); got != want {
		t.Errorf("report from raw results differs:\n%s\nwant:\n%s", got, want)
	}
}

// An extension life is set beside the modern-era echo row when it ran, a
// legacy life beside the echo row; without the modern row, both go beside
// the echo row.
func TestExtensionLivesAreSetBesideModernCalls(t *testing.T) {
	r := fakeResults([]string{"weft", "bare"},
		map[string]time.Duration{"weft": 25 * time.Microsecond, "bare": 20 * time.Microsecond},
		map[string]float64{"weft": 1500, "bare": 200})
	addTaskLives(r, "memory", mcpwire.LegacyTasks, 100*time.Microsecond, 5000)
	addTaskLives(r, "memory", mcpwire.ExtensionTasks, 100*time.Microsecond, 5000)
	wantLines(t, report(t, r),
		"| issue 19 | http, 32 in flight, extension tasks, memory: server CPU/task ≤ 1.5× as many plain calls as the life has requests | 1.00× (0.83×–1.04×) of 4.00 requests × CPU/call | yes |",
	)
	r.Impls[0].Variants = implementations()[0].Variants
	for round := range spreads {
		for _, c := range cells() {
			modern, _ := r.modernEchoKey("weft", c)
			r.Runs = append(r.Runs, rowRun{Round: round + 1, Key: modern,
				Result: rowResult{Result: loadgen.Result{PerSecond: 1000, CPUPerRequest: 50 * time.Microsecond}}})
		}
	}
	wantLines(t, report(t, r),
		"## Plain calls in the modern era (weft)",
		// 100/(4×50) in every round
		"| http | 32 | weft | memory | extension | 5000 | 1.00 ms | 3.00 ms | 100.0 µs | 4.00 | 2.00 | 0.50× | – | – | – |",
		"| issue 19 | http, 32 in flight, extension tasks, memory: server CPU/task ≤ 1.5× as many modern plain calls as the life has requests | 0.50× of 4.00 requests × CPU/call | yes |",
		"| issue 19 | http, 32 in flight, legacy tasks, memory: server CPU/task ≤ 1.5× as many plain calls as the life has requests | 1.00× (0.83×–1.04×) of 4.00 requests × CPU/call | yes |",
	)
}

package main

import (
	"fmt"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// subject is the implementation the targets are about.
const subject = "weft"

// targetCheck is one target evaluated against a run.
type targetCheck struct {
	// Group names the issue the target comes from.
	Group    string
	Target   string
	Measured string
	// Met is the verdict on the median over the rounds.
	Met bool
	// Split says the rounds disagreed: some met the target and some did
	// not, so the target's line lies within the range and another run may
	// decide it the other way.
	Split bool
}

// verdict is how the report's table gives the check's outcome.
func (c targetCheck) verdict() string {
	switch {
	case c.Met && c.Split:
		return "yes, not in every round"
	case c.Met:
		return "yes"
	case c.Split:
		return "no, met in some rounds"
	}
	return "no"
}

// tallyTargets sums the checks up for the report's heading: how many were
// met, and how many of the met and missed every round agreed on.
func tallyTargets(checks []targetCheck) string {
	var met, metEvery, missedEvery int
	for _, c := range checks {
		switch {
		case c.Met && !c.Split:
			met++
			metEvery++
		case c.Met:
			met++
		case !c.Split:
			missedEvery++
		}
	}
	return fmt.Sprintf("%d of %d met (%d in every round); %d missed in every round, %d split between rounds",
		met, len(checks), metEvery, missedEvery, len(checks)-metEvery-missedEvery)
}

// atMost is the verdict on a figure that must be ≤ limit: met on its
// median, split when its range spans the limit.
func atMost(s summary, limit float64) (met, split bool) {
	return s.N > 0 && s.Median <= limit, s.N > 1 && s.Min <= limit && s.Max > limit
}

// atLeast is the verdict on a figure that must be ≥ least: met on its
// median, split when its range spans it.
func atLeast(s summary, least float64) (met, split bool) {
	return s.N > 0 && s.Median >= least, s.N > 1 && s.Min < least && s.Max >= least
}

// Target thresholds: issue 9 (plain calls, idle sessions) and issue 19
// (floors, task life, stores).
const (
	maxCPUVsBare        = 1.5    // weft server CPU/req ≤ 1.5× bare's, every cell
	maxP99VsBare        = 2.0    // weft p99 ≤ 2× bare's, every cell
	minStdioCPUGainGo   = 10.0   // go-sdk spends ≥ 10× weft's server CPU/req on stdio
	minStdioCPUGainMark = 3.0    // mcp-go spends ≥ 3× weft's server CPU/req on stdio
	maxSessionBytes     = 2048.0 // memory per idle legacy HTTP session

	maxHTTPCPUVsBare    = 1.2 // HTTP: weft server CPU/req ≤ 1.2× bare's
	maxStdioCPUVsSerial = 1.1 // stdio: weft server CPU/req ≤ 1.1× the serial floor's
	maxTaskCPUVsCalls   = 1.5 // a task life ≤ 1.5× the CPU of as many plain calls (memory store)
	maxStoreTaskCPU     = 1.5 // Redis, PostgreSQL: server CPU/task ≤ 1.5× the memory store's
)

// minStoreThroughput is each durable store's least tasks/s at 32 in flight
// over HTTP, as a share of the memory store's in the same round.
var minStoreThroughput = map[string]float64{"sqlite": 0.3, "redis": 0.5, "postgres": 0.25}

// Figures the targets use.
var (
	perSecond  = func(x rowResult) float64 { return x.PerSecond }
	cpu        = func(x rowResult) float64 { return float64(x.CPUPerRequest) }
	p99        = func(x rowResult) float64 { return float64(x.P99) }
	httpCell32 = cell{transportHTTP, 32}
)

// evaluateTargets checks the subject against the floors, the peers and its
// own memory store. It returns nothing when the subject is not in the run;
// a check whose rows did not run is left out.
func evaluateTargets(r *results) []targetCheck {
	if !r.has(subject) {
		return nil
	}
	checks := plainCallTargets(r)
	if perSession := r.sessionFigure(subject, func(s sessionResult) float64 { return s.PerSession }); perSession.N > 0 {
		c := targetCheck{
			Group:    "issue 9",
			Target:   fmt.Sprintf("memory per idle legacy HTTP session ≤ %s", formatBytes(maxSessionBytes)),
			Measured: perSession.format(formatBytes),
		}
		c.Met, c.Split = atMost(perSession, maxSessionBytes)
		if !c.Met {
			c.Measured += " (" + formatOver(perSession.Median/maxSessionBytes) + " over)"
		}
		checks = append(checks, c)
	}
	checks = append(checks, taskTargets(r)...)
	return append(checks, sharedSessionTargets(r)...)
}

// maxSessionRoundTrips bounds the store round trips of a request of a known
// legacy session kept in a shared store (issue 17).
const maxSessionRoundTrips = 1.0

// sharedSessionTargets checks the rows of legacy sessions in a shared
// store whose round trips were counted.
func sharedSessionTargets(r *results) []targetCheck {
	var checks []targetCheck
	impl, _ := r.impl(subject)
	for _, c := range cells() {
		for _, v := range impl.Variants {
			k := rowKey{Section: sectionSharedSessions, Impl: subject, Variant: v.Name, Store: v.Store, Cell: c}
			trips, apart := requestTrips(r, k)
			if v.Section != sectionSharedSessions || trips.Max == 0 {
				continue
			}
			measured := trips.format(formatCount) + " round trips per request, counted by the server in serving requests (the expiry sweep's, in the background, apart)"
			if !apart {
				measured = trips.format(formatCount) + " round trips per request, the expiry sweep's included (measured before they were told apart)"
			}
			check := targetCheck{
				Group:    "issue 17",
				Target:   fmt.Sprintf("%s: a request of a known session on %s makes ≤ %.0f store round trip", c, v.Store, maxSessionRoundTrips),
				Measured: measured,
			}
			check.Met, check.Split = atMost(trips, maxSessionRoundTrips)
			checks = append(checks, check)
		}
	}
	return checks
}

// plainCallTargets checks the echo rows.
func plainCallTargets(r *results) []targetCheck {
	var checks []targetCheck
	add := func(c targetCheck, ok bool) {
		if ok {
			checks = append(checks, c)
		}
	}
	for _, c := range cells() {
		mine := echoKey(subject, c)
		if !r.ran(mine) {
			continue
		}
		bare := echoKey("bare", c)
		add(ratioCheck(r, "issue 9", fmt.Sprintf("%s: server CPU/req ≤ %.1f× bare", c, maxCPUVsBare), mine, bare, cpu, maxCPUVsBare))
		add(ratioCheck(r, "issue 9", fmt.Sprintf("%s: p99 ≤ %.0f× bare", c, maxP99VsBare), mine, bare, p99, maxP99VsBare))
		for _, peer := range []string{"gosdk", "mcpgo"} {
			theirs := echoKey(peer, c)
			if !r.ran(theirs) {
				continue
			}
			mr, tr := r.figure(mine, perSecond).Median, r.figure(theirs, perSecond).Median
			mc, tc := r.figure(mine, cpu).Median, r.figure(theirs, cpu).Median
			ahead := r.combine(mine, theirs, func(x, y rowResult) (float64, bool) {
				if x.PerSecond > y.PerSecond && cpu(x) < cpu(y) {
					return 1, true
				}
				return 0, true
			})
			checks = append(checks, targetCheck{
				Group:    "issue 9",
				Target:   fmt.Sprintf("%s: ahead of %s (more req/s and less server CPU/req)", c, peer),
				Measured: fmt.Sprintf("%s vs %s req/s, %s vs %s CPU/req (medians)", formatRate(mr), formatRate(tr), formatDuration(mc), formatDuration(tc)),
				Met:      mr > tr && mc < tc,
				Split:    ahead.Min != ahead.Max,
			})
		}
		if c.Transport == transportStdio {
			for _, gain := range []struct {
				peer string
				min  float64
			}{{"gosdk", minStdioCPUGainGo}, {"mcpgo", minStdioCPUGainMark}} {
				check, ok := ratioCheck(r, "issue 9", fmt.Sprintf("%s: server CPU/req ≤ 1/%.0f of %s", c, gain.min, gain.peer),
					mine, echoKey(gain.peer, c), cpu, 1/gain.min)
				if floor, ok := stdioFloor(r, c); ok && !check.Met {
					need, floorCPU := r.figure(echoKey(gain.peer, c), cpu).Median/gain.min, r.figure(floor, cpu).Median
					if need < floorCPU { // the target asks for less than the floor: say so
						check.Measured += fmt.Sprintf("; it needs %s, %s %s's %s", formatDuration(need), formatRatio(need, floorCPU), floor.Impl, formatDuration(floorCPU))
					}
				}
				add(check, ok)
			}
			add(ratioCheck(r, "issue 19", fmt.Sprintf("%s: server CPU/req ≤ %.1f× bare-serial (the stdio floor)", c, maxStdioCPUVsSerial),
				mine, echoKey("bare-serial", c), cpu, maxStdioCPUVsSerial))
		} else {
			add(ratioCheck(r, "issue 19", fmt.Sprintf("%s: server CPU/req ≤ %.1f× bare", c, maxHTTPCPUVsBare), mine, bare, cpu, maxHTTPCPUVsBare))
		}
	}
	return checks
}

// stdioFloor is the lowest floor that ran in stdio cell c: the serial loop,
// else bare.
func stdioFloor(r *results, c cell) (rowKey, bool) {
	for _, name := range []string{"bare-serial", "bare"} {
		if k := echoKey(name, c); r.ran(k) {
			return k, true
		}
	}
	return rowKey{}, false
}

// taskTargets checks the task life rows of the subject.
func taskTargets(r *results) []targetCheck {
	var checks []targetCheck
	add := func(c targetCheck, ok bool) {
		if ok {
			checks = append(checks, c)
		}
	}
	task := func(store string, s mcpwire.Surface, c cell) rowKey {
		return rowKey{Section: sectionTasks, Impl: subject, Store: store, Surface: s, Cell: c}
	}
	for _, s := range mcpwire.Surfaces() {
		for _, c := range cells() {
			life := task("memory", s, c)
			call, modern := r.plainCallKey(life)
			if !r.ran(life) || !r.ran(call) {
				continue
			}
			per := r.combine(life, call, taskVsCalls)
			calls := "plain calls"
			if modern {
				calls = "modern plain calls"
			}
			c := targetCheck{
				Group: "issue 19",
				Target: fmt.Sprintf("%s, %s tasks, memory: server CPU/task ≤ %.1f× as many %s as the life has requests",
					c, s, maxTaskCPUVsCalls, calls),
				Measured: per.format(formatTimes) + fmt.Sprintf(" of %s requests × CPU/call", r.figure(life, requestsPerTask).format(formatCount)),
			}
			c.Met, c.Split = atMost(per, maxTaskCPUVsCalls)
			if !c.Met {
				c.Measured += " (" + formatOver(per.Median/maxTaskCPUVsCalls) + " over)"
			}
			checks = append(checks, c)
		}
	}
	for _, store := range []string{"memory", "sqlite", "redis", "postgres"} {
		for _, s := range mcpwire.Surfaces() {
			for _, transport := range []string{transportStdio, transportHTTP} {
				one, many := task(store, s, cell{transport, 1}), task(store, s, cell{transport, 32})
				if !r.ran(one) || !r.ran(many) {
					continue
				}
				a, b := r.figure(many, perSecond), r.figure(one, perSecond)
				_, split := atLeast(r.ratio(many, one, perSecond), 1)
				checks = append(checks, targetCheck{
					Group:    "issue 19",
					Target:   fmt.Sprintf("%s, %s tasks, %s: tasks/s at 32 in flight ≥ at 1", transport, s, store),
					Measured: fmt.Sprintf("%s vs %s", a.format(formatRate), b.format(formatRate)),
					Met:      a.Median >= b.Median,
					Split:    split,
				})
			}
			memory := task("memory", s, httpCell32)
			if min, ok := minStoreThroughput[store]; ok {
				share := r.ratio(task(store, s, httpCell32), memory, perSecond)
				c := targetCheck{
					Group:    "issue 19",
					Target:   fmt.Sprintf("%s, %s tasks: %s tasks/s ≥ %.2f× the memory store's", httpCell32, s, store, min),
					Measured: share.format(formatTimes),
				}
				c.Met, c.Split = atLeast(share, min)
				if !c.Met {
					c.Measured += fmt.Sprintf(" (%.0f%% short)", 100*(1-share.Median/min))
				}
				add(c, share.N > 0)
			}
			if store == "redis" || store == "postgres" {
				for _, c := range cells() {
					check, ok := ratioCheck(r, "issue 19", fmt.Sprintf("%s, %s tasks: %s server CPU/task ≤ %.1f× the memory store's", c, s, store, maxStoreTaskCPU),
						task(store, s, c), task("memory", s, c), cpu, maxStoreTaskCPU)
					check.Measured += floorNote(r, task(store, s, c), maxStoreTaskCPU)
					add(check, ok)
				}
			}
		}
	}
	return checks
}

// taskVsCalls divides a task life's server CPU per task by its requests per
// task times the plain call's server CPU per request.
func taskVsCalls(life, call rowResult) (float64, bool) {
	d := life.RequestsPerTask * float64(call.CPUPerRequest)
	return float64(life.CPUPerRequest) / d, d > 0
}

// requestsPerTask is a task life's mean requests per task.
func requestsPerTask(x rowResult) float64 { return x.RequestsPerTask }

// formatOver prints by how much a figure x times its limit is over it:
// whole percent, or one decimal below 10%.
func formatOver(x float64) string {
	if over := 100 * (x - 1); over < 10 {
		return fmt.Sprintf("%.1f%%", over)
	}
	return fmt.Sprintf("%.0f%%", 100*(x-1))
}

// ratioCheck checks that row mine's value over row theirs's, round by
// round, has a median ≤ limit, saying by how much a miss misses. It is not
// ok when either row did not run.
func ratioCheck(r *results, group, target string, mine, theirs rowKey, value func(rowResult) float64, limit float64) (targetCheck, bool) {
	if !r.ran(mine) || !r.ran(theirs) {
		return targetCheck{}, false
	}
	s := r.ratio(mine, theirs, value)
	c := targetCheck{Group: group, Target: target, Measured: s.format(formatTimes)}
	c.Met, c.Split = atMost(s, limit)
	if s.N > 0 && !c.Met {
		c.Measured += " (" + formatOver(s.Median/limit) + " over)"
	}
	return c, true
}

package main

import (
	"fmt"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// subject is the implementation the targets are about.
const subject = "weft"

// targetCheck is one target evaluated against a run.
type targetCheck struct {
	Target   string
	Measured string
	Met      bool
}

// Target thresholds (issue 9).
const (
	maxCPUVsBare        = 1.5    // weft server CPU/req ≤ 1.5× bare's, every cell
	maxP99VsBare        = 2.0    // weft p99 ≤ 2× bare's, every cell
	minStdioCPUGainGo   = 10.0   // go-sdk spends ≥ 10× weft's server CPU/req on stdio
	minStdioCPUGainMark = 3.0    // mcp-go spends ≥ 3× weft's server CPU/req on stdio
	maxSessionBytes     = 2048.0 // memory per idle legacy HTTP session
)

// evaluateTargets checks the subject against the floor and the peers. It
// returns nothing when the subject is not in the run; a check whose other
// side is missing is left out.
func evaluateTargets(r *results) []targetCheck {
	if !r.has(subject) {
		return nil
	}
	perSecond := func(x loadgen.Result) float64 { return x.PerSecond }
	cpu := func(x loadgen.Result) float64 { return float64(x.CPUPerRequest) }
	p99 := func(x loadgen.Result) float64 { return float64(x.P99) }
	var checks []targetCheck
	for _, c := range cells() {
		mine := func(v func(loadgen.Result) float64) float64 { return r.throughputMedian(subject, c, v) }
		theirs := func(impl string, v func(loadgen.Result) float64) float64 { return r.throughputMedian(impl, c, v) }
		if r.has("bare") {
			checks = append(checks,
				ratioCheck(fmt.Sprintf("%s: server CPU/req ≤ %.1f× bare", c, maxCPUVsBare), mine(cpu), theirs("bare", cpu), maxCPUVsBare),
				ratioCheck(fmt.Sprintf("%s: p99 ≤ %.0f× bare", c, maxP99VsBare), mine(p99), theirs("bare", p99), maxP99VsBare),
			)
		}
		for _, peer := range []string{"gosdk", "mcpgo"} {
			if !r.has(peer) {
				continue
			}
			checks = append(checks, targetCheck{
				Target: fmt.Sprintf("%s: ahead of %s (more req/s and less server CPU/req)", c, peer),
				Measured: fmt.Sprintf("%s vs %s req/s, %s vs %s CPU/req",
					formatRate(mine(perSecond)), formatRate(theirs(peer, perSecond)),
					formatDuration(mine(cpu)), formatDuration(theirs(peer, cpu))),
				Met: mine(perSecond) > theirs(peer, perSecond) && mine(cpu) < theirs(peer, cpu),
			})
		}
		if c.Transport != transportStdio {
			continue
		}
		for _, gain := range []struct {
			peer string
			min  float64
		}{{"gosdk", minStdioCPUGainGo}, {"mcpgo", minStdioCPUGainMark}} {
			if !r.has(gain.peer) {
				continue
			}
			check := ratioCheck(fmt.Sprintf("%s: server CPU/req ≤ 1/%.0f of %s", c, gain.min, gain.peer),
				mine(cpu), theirs(gain.peer, cpu), 1/gain.min)
			if need, floor := theirs(gain.peer, cpu)/gain.min, theirs("bare", cpu); !check.Met && r.has("bare") && need < floor {
				// The target asks for less than the floor: say so.
				check.Measured += fmt.Sprintf("; it needs %s, %s bare's %s, since %s is only %s bare",
					formatDuration(need), formatRatio(need, floor), formatDuration(floor), gain.peer, formatRatio(theirs(gain.peer, cpu), floor))
			}
			checks = append(checks, check)
		}
	}
	perSession := r.sessionMedian(subject, func(s sessionResult) float64 { return s.PerSession })
	sessions := targetCheck{
		Target:   fmt.Sprintf("memory per idle legacy HTTP session ≤ %s", formatBytes(maxSessionBytes)),
		Measured: formatBytes(perSession),
		Met:      perSession <= maxSessionBytes,
	}
	if !sessions.Met {
		sessions.Measured += " (" + formatOver(perSession/maxSessionBytes) + " over)"
	}
	checks = append(checks, sessions)
	return checks
}

// formatOver prints by how much a figure x times its limit is over it:
// whole percent, or one decimal below 10%.
func formatOver(x float64) string {
	if over := 100 * (x - 1); over < 10 {
		return fmt.Sprintf("%.1f%%", over)
	}
	return fmt.Sprintf("%.0f%%", 100*(x-1))
}

// ratioCheck checks mine/theirs ≤ limit, saying by how much a miss misses.
func ratioCheck(target string, mine, theirs, limit float64) targetCheck {
	c := targetCheck{
		Target:   target,
		Measured: formatRatio(mine, theirs),
		Met:      theirs > 0 && mine/theirs <= limit,
	}
	if theirs > 0 && !c.Met {
		c.Measured += " (" + formatOver(mine/theirs/limit) + " over)"
	}
	return c
}

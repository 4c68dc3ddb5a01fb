package main

import (
	"fmt"
	"sort"
)

// Verdict is the outcome of one scenario in one run.
type Verdict string

// Verdicts, from best to worst.
const (
	VerdictPass       Verdict = "pass"
	VerdictSkipped    Verdict = "skipped"  // nothing failed, but no real check passed either
	VerdictExpected   Verdict = "baseline" // failed, and the baseline expects it
	VerdictUnexpected Verdict = "FAIL"     // failed, and the baseline does not expect it
)

// syntheticChecks are the checks every scenario gets from the harness; a
// scenario whose only success is one of these tested nothing of its own.
var syntheticChecks = map[string]bool{
	"wire-schema-valid":         true,
	"wire-schema-harness-error": true,
}

// Row is one scenario of one run, judged against the baseline.
type Row struct {
	Scenario                          string
	Passed, Failed, Warnings, Skipped int
	Verdict                           Verdict
	// Problems lists what failed (checks, client outcome), each with the
	// suite's message; empty when the scenario passed.
	Problems []string
}

// EntryState is how one baseline entry fared across every run evaluated.
type EntryState struct {
	Entry
	Ran    bool // the scenario (or check) was run at least once
	Failed bool // and failed at least once
}

// Evaluation is the verdict on a set of runs.
type Evaluation struct {
	Runs    []*Run
	Rows    map[string][]Row // by run name
	Entries []EntryState
	// Errors are the reasons the runs do not pass: unexpected failures,
	// stale baseline entries, non-zero exit codes, empty runs.
	Errors []string
}

// Evaluate judges every scenario of every run against the baseline. With
// complete set (all runs of run.sh were evaluated), a baseline entry that
// matched no scenario is an error too, since it can never go stale.
func Evaluate(runs []*Run, b *Baseline, complete bool) *Evaluation {
	ev := &Evaluation{Runs: runs, Rows: map[string][]Row{}}
	states := make([]EntryState, len(b.Entries))
	for i, e := range b.Entries {
		states[i] = EntryState{Entry: e}
	}
	// A whole-scenario entry is exercised by its scenario, a check entry by
	// its check only.
	mark := func(side, scenario, check string, failed bool) {
		for i := range states {
			s := &states[i]
			if s.Side == side && s.Scenario == scenario && s.Check == check {
				s.Ran = true
				s.Failed = s.Failed || failed
			}
		}
	}

	for _, run := range runs {
		if run.ExitCode != 0 {
			ev.Errors = append(ev.Errors, fmt.Sprintf("run %s exited with code %d (see .cache/conformance-out/%s/output.txt)", run.Name, run.ExitCode, run.Name))
		}
		if len(run.Scenarios) == 0 {
			ev.Errors = append(ev.Errors, fmt.Sprintf("run %s produced no scenario results", run.Name))
		}
		for _, sr := range run.Scenarios {
			row := judge(run.Side, sr, b)
			ev.Rows[run.Name] = append(ev.Rows[run.Name], row)
			scenarioFailed := row.Verdict == VerdictExpected || row.Verdict == VerdictUnexpected
			for _, c := range sr.Checks {
				mark(run.Side, sr.Scenario, c.ID, failing(c))
			}
			mark(run.Side, sr.Scenario, "", scenarioFailed)
			if row.Verdict == VerdictUnexpected {
				for _, p := range row.Problems {
					ev.Errors = append(ev.Errors, fmt.Sprintf("%s: %s: %s", run.Name, sr.Scenario, p))
				}
			}
		}
	}
	for _, s := range states {
		switch {
		case s.Ran && !s.Failed:
			ev.Errors = append(ev.Errors, fmt.Sprintf("baseline.yml line %d: %s %q now passes: remove it from the baseline (stale entry)", s.Line, s.Side, s.Key()))
		case !s.Ran && complete:
			ev.Errors = append(ev.Errors, fmt.Sprintf("baseline.yml line %d: %s %q matched no scenario in any run: fix the name or remove it", s.Line, s.Side, s.Key()))
		}
	}
	ev.Entries = states
	return ev
}

func failing(c Check) bool { return c.Status == statusFailure || c.Status == statusWarning }

// judge gives one scenario of one run its verdict.
func judge(side string, sr ScenarioResult, b *Baseline) Row {
	row := Row{Scenario: sr.Scenario}
	realSuccess := false
	var unexpected, expected []string
	for _, c := range sr.Checks {
		switch c.Status {
		case statusSuccess:
			row.Passed++
			if !syntheticChecks[c.ID] {
				realSuccess = true
			}
		case statusFailure:
			row.Failed++
		case statusWarning:
			row.Warnings++
		case statusSkipped:
			row.Skipped++
		}
		if !failing(c) {
			continue
		}
		msg := fmt.Sprintf("%s %s (%s): %s", c.Status, c.ID, c.Name, oneLine(c.ErrorMessage, 300))
		if _, ok := b.checkEntry(side, sr.Scenario, c.ID); ok {
			expected = append(expected, msg)
		} else {
			unexpected = append(unexpected, msg)
		}
	}
	if sr.ClientOutcome != "" {
		unexpected = append(unexpected, sr.ClientOutcome)
	}
	_, wholeScenario := b.scenarioEntry(side, sr.Scenario)
	switch {
	case len(unexpected) == 0 && len(expected) == 0 && realSuccess:
		row.Verdict = VerdictPass
	case len(unexpected) == 0 && len(expected) == 0:
		row.Verdict = VerdictSkipped
	case wholeScenario || len(unexpected) == 0:
		row.Verdict = VerdictExpected
		row.Problems = append(expected, unexpected...)
	default:
		row.Verdict = VerdictUnexpected
		row.Problems = unexpected
	}
	return row
}

// oneLine flattens a message to one line of at most limit bytes.
func oneLine(s string, limit int) string {
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == '\n' || r == '\r' || r == '\t' || r == ' ' {
			if !space && len(out) > 0 {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		space = false
		out = append(out, r)
	}
	res := string(out)
	if len(res) > limit {
		res = res[:limit] + "…"
	}
	return res
}

// counts returns how many rows of a run have each verdict.
func counts(rows []Row) map[Verdict]int {
	m := map[Verdict]int{}
	for _, r := range rows {
		m[r.Verdict]++
	}
	return m
}

// entryRuns lists the runs in which a baseline entry's scenario failed as
// the baseline expects.
func (ev *Evaluation) entryRuns(e Entry) []string {
	var in []string
	for _, run := range ev.Runs {
		if run.Side != e.Side {
			continue
		}
		for _, row := range ev.Rows[run.Name] {
			if row.Scenario == e.Scenario && row.Verdict == VerdictExpected {
				in = append(in, run.Name)
			}
		}
	}
	sort.Strings(in)
	return in
}

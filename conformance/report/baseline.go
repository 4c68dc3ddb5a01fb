package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// reasonMarker starts the comment every baseline entry must carry, naming
// the feature the scenario waits for.
const reasonMarker = "# waits for:"

// Entry is one line of the baseline: a whole scenario, or one check of a
// scenario when Check is set, expected to fail until Reason is built.
type Entry struct {
	Side     string // "server" or "client"
	Scenario string
	Check    string // empty for a whole-scenario entry
	Reason   string
	Line     int
}

// Key is the entry as the suite spells it: "scenario" or "scenario:check".
func (e Entry) Key() string {
	if e.Check == "" {
		return e.Scenario
	}
	return e.Scenario + ":" + e.Check
}

// Baseline is the parsed conformance/baseline.yml.
type Baseline struct {
	Entries []Entry
}

// ParseBaseline reads the baseline file. It accepts the subset of YAML the
// suite's --expected-failures option reads (top-level "server:" and
// "client:" lists of plain scalars) and additionally requires every entry
// to end in a "# waits for: <feature>" comment, so no failure is accepted
// without a stated reason.
func ParseBaseline(r io.Reader) (*Baseline, error) {
	b := &Baseline{}
	seen := map[string]int{}
	side := ""
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			switch trimmed {
			case "server:", "client:":
				side = strings.TrimSuffix(trimmed, ":")
				continue
			}
			return nil, fmt.Errorf("baseline line %d: %q is not a section; use \"server:\" or \"client:\"", n, trimmed)
		}
		if !strings.HasPrefix(trimmed, "- ") {
			return nil, fmt.Errorf("baseline line %d: %q is not a list item; write \"  - scenario  %s feature\"", n, trimmed, reasonMarker)
		}
		if side == "" {
			return nil, fmt.Errorf("baseline line %d: entry before any \"server:\" or \"client:\" section", n)
		}
		item := strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))
		value, comment, hasComment := strings.Cut(item, "#")
		value = strings.TrimSpace(value)
		reason := ""
		if hasComment {
			comment = "#" + comment
			if strings.HasPrefix(comment, reasonMarker) {
				reason = strings.TrimSpace(strings.TrimPrefix(comment, reasonMarker))
			}
		}
		if reason == "" {
			return nil, fmt.Errorf("baseline line %d: entry %q has no reason; end the line with \"%s <the feature it waits for>\"", n, value, reasonMarker)
		}
		if value == "" || strings.ContainsAny(value, " \t\"'") {
			return nil, fmt.Errorf("baseline line %d: %q is not a plain scenario name", n, value)
		}
		e := Entry{Side: side, Scenario: value, Reason: reason, Line: n}
		if scen, check, ok := strings.Cut(value, ":"); ok {
			if scen == "" || check == "" {
				return nil, fmt.Errorf("baseline line %d: %q needs both sides of the colon (scenario:check-id)", n, value)
			}
			e.Scenario, e.Check = scen, check
		}
		key := side + " " + e.Key()
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("baseline line %d: %s entry %q repeats line %d", n, side, value, prev)
		}
		seen[key] = n
		b.Entries = append(b.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading baseline: %w", err)
	}
	for _, e := range b.Entries {
		if e.Check != "" {
			if prev, whole := seen[e.Side+" "+e.Scenario]; whole {
				return nil, fmt.Errorf("baseline line %d: %q is redundant: line %d already expects the whole scenario %q to fail", e.Line, e.Key(), prev, e.Scenario)
			}
		}
	}
	return b, nil
}

// scenarioEntry returns the whole-scenario entry for a scenario, if any.
func (b *Baseline) scenarioEntry(side, scenario string) (Entry, bool) {
	for _, e := range b.Entries {
		if e.Side == side && e.Scenario == scenario && e.Check == "" {
			return e, true
		}
	}
	return Entry{}, false
}

// checkEntry returns the entry for one check of a scenario, if any.
func (b *Baseline) checkEntry(side, scenario, check string) (Entry, bool) {
	for _, e := range b.Entries {
		if e.Side == side && e.Scenario == scenario && e.Check == check {
			return e, true
		}
	}
	return Entry{}, false
}

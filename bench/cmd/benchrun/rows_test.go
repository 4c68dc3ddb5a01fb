package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

func names(impls []implementation) []string {
	var out []string
	for _, i := range impls {
		out = append(out, i.Name)
	}
	return out
}

func TestSelectImplementationsKeepsTableOrder(t *testing.T) {
	got, err := selectImplementations("bare,gosdk")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gosdk", "bare"}; !slices.Equal(names(got), want) {
		t.Errorf("selected %v, want %v", names(got), want)
	}
	if _, err := selectImplementations("bare,nope"); err == nil {
		t.Error("an unknown implementation was accepted")
	}
}

func TestRotateGivesEveryImplementationItsTurnFirst(t *testing.T) {
	impls := implementations()
	var firsts []string
	for round := range len(impls) {
		order := rotate(impls, round)
		if len(order) != len(impls) {
			t.Fatalf("round %d runs %v", round, names(order))
		}
		firsts = append(firsts, order[0].Name)
	}
	slices.Sort(firsts)
	all := names(impls)
	slices.Sort(all)
	if !slices.Equal(firsts, all) {
		t.Errorf("first in each round: %v, want each of %v once", firsts, all)
	}
}

func TestParseListKeepsKnownOrderAndRejectsUnknownNames(t *testing.T) {
	got, err := parseList("idle,echo", "-rows", sections())
	if err != nil || !slices.Equal(got, []section{sectionEcho, sectionIdle}) {
		t.Errorf("parseList(idle,echo) = %v, %v; want [echo idle]", got, err)
	}
	if all, _ := parseList("", "-rows", sections()); !slices.Equal(all, sections()) {
		t.Errorf("an empty -rows selected %v, want every section", all)
	}
	if _, err := parseList("memory,mongo", "-store", []string{"memory", "redis"}); err == nil || !strings.Contains(err.Error(), `"mongo"`) {
		t.Errorf("an unknown store gave %v, want an error naming it", err)
	}
}

func TestPlanRunsEachRowWhereItMeansSomething(t *testing.T) {
	sel, err := parseSelection("", "", "")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, k := range sel.plan(0) {
		count[string(k.Section)+" "+k.Impl]++
		switch {
		case k.Impl == "bare-serial" && k.Cell.Transport != transportStdio:
			t.Errorf("the stdio floor runs %s", k)
		case k.Impl == "bare-serial" && k.Section == sectionIdle:
			t.Errorf("the stdio floor measures idle HTTP sessions")
		case k.Section == sectionSharedSessions && (k.Cell.Transport != transportHTTP || k.Store == "" || k.Store == "memory"):
			t.Errorf("shared sessions run as %s", k)
		case k.Section == sectionTasks && k.Impl == "mcpgo" && (k.Store != "memory" || k.Surface != mcpwire.LegacyTasks):
			t.Errorf("mcp-go's tasks run as %s", k)
		}
	}
	for row, want := range map[string]int{
		"echo weft": 4, "echo bare-serial": 2, "echo bare": 4,
		"tasks weft": 4 * 4 * 2, "tasks mcpgo": 4, "tasks gosdk": 0, "tasks bare": 0,
		"otel weft": 8, "sessions weft": 2 * 3, "idle weft": 1, "idle bare-serial": 0,
	} {
		if count[row] != want {
			t.Errorf("%s: %d rows, want %d", row, count[row], want)
		}
	}

	// -store memory leaves out every row on another store, shared sessions
	// included; -rows tasks and -only mcpgo leave one row per cell.
	sel, err = parseSelection("mcpgo", "tasks", "memory")
	if err != nil {
		t.Fatal(err)
	}
	if rows := sel.plan(3); len(rows) != len(cells()) {
		t.Errorf("-only mcpgo -rows tasks -store memory plans %v, want one task row per cell", rows)
	}
	sel, _ = parseSelection("weft", "sessions", "memory,redis")
	if rows := sel.plan(0); len(rows) != 2 || rows[0].Store != "redis" || rows[1].Store != "redis" {
		t.Errorf("-store memory,redis plans the shared-session rows %v, want Redis's alone, one per HTTP cell", rows)
	}
}

func TestRowNamesAreDistinct(t *testing.T) {
	sel, _ := parseSelection("", "", "")
	seen := map[string]bool{}
	for _, k := range sel.plan(0) {
		if seen[k.String()] {
			t.Errorf("two rows are named %q", k)
		}
		seen[k.String()] = true
	}
}

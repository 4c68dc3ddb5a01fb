package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weftmcp/weft/conformance/internal/outcome"
)

func mustBaseline(t *testing.T, text string) *Baseline {
	t.Helper()
	b, err := ParseBaseline(strings.NewReader(text))
	if err != nil {
		t.Fatalf("ParseBaseline: %v", err)
	}
	return b
}

func TestParseBaselineReadsEntriesWithReasons(t *testing.T) {
	b := mustBaseline(t, `# comment
server:
  - tasks-lifecycle  # waits for: tasks surface
  - server-stateless:sep-2575-x  # waits for: discover
client:
  - auth/basic-cimd # waits for: OAuth (issue 10)
`)
	want := []Entry{
		{Side: "server", Scenario: "tasks-lifecycle", Reason: "tasks surface", Line: 3},
		{Side: "server", Scenario: "server-stateless", Check: "sep-2575-x", Reason: "discover", Line: 4},
		{Side: "client", Scenario: "auth/basic-cimd", Reason: "OAuth (issue 10)", Line: 6},
	}
	if len(b.Entries) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(b.Entries), len(want), b.Entries)
	}
	for i := range want {
		if b.Entries[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, b.Entries[i], want[i])
		}
	}
}

func TestParseBaselineRejects(t *testing.T) {
	for name, text := range map[string]string{
		"no reason":         "server:\n  - tasks-lifecycle\n",
		"other comment":     "server:\n  - tasks-lifecycle  # flaky\n",
		"empty reason":      "server:\n  - tasks-lifecycle  # waits for:   \n",
		"no section":        "  - tasks-lifecycle  # waits for: x\n",
		"unknown section":   "servers:\n  - a  # waits for: x\n",
		"mapping entry":     "server:\n  - a: b  # waits for: x\n",
		"duplicate":         "server:\n  - a  # waits for: x\n  - a  # waits for: y\n",
		"redundant check":   "server:\n  - a  # waits for: x\n  - a:c  # waits for: y\n",
		"half-empty colon":  "server:\n  - a:  # waits for: x\n",
		"not a list item":   "server:\n  a  # waits for: x\n",
		"quoted scenario":   "server:\n  - \"a\"  # waits for: x\n",
		"reason-only entry": "server:\n  - # waits for: x\n",
	} {
		if _, err := ParseBaseline(strings.NewReader(text)); err == nil {
			t.Errorf("%s: ParseBaseline accepted %q", name, text)
		}
	}
}

func mkRun(name string, scenarios ...ScenarioResult) *Run {
	side, _, _ := strings.Cut(name, "-")
	return &Run{Name: name, Side: side, Scenarios: scenarios}
}

func scen(name string, statuses ...string) ScenarioResult {
	sr := ScenarioResult{Scenario: name}
	for i, s := range statuses {
		sr.Checks = append(sr.Checks, Check{ID: name + "-check-" + string(rune('a'+i)), Name: "N", Status: s, ErrorMessage: "msg"})
	}
	return sr
}

func verdicts(ev *Evaluation, runName string) map[string]Verdict {
	m := map[string]Verdict{}
	for _, r := range ev.Rows[runName] {
		m[r.Scenario] = r.Verdict
	}
	return m
}

func TestEvaluateVerdicts(t *testing.T) {
	b := mustBaseline(t, "server:\n  - broken  # waits for: feature\n")
	onlySynthetic := ScenarioResult{Scenario: "synthetic-only", Checks: []Check{
		{ID: "tasks-status-notifications", Status: statusSkipped},
		{ID: "wire-schema-valid", Status: statusSuccess},
	}}
	ev := Evaluate([]*Run{mkRun("server-all",
		scen("good", statusSuccess, statusSkipped),
		scen("warned", statusSuccess, statusWarning),
		scen("bad", statusFailure),
		scen("broken", statusFailure, statusSuccess),
		onlySynthetic,
		ScenarioResult{Scenario: "empty"},
	)}, b, false)
	got := verdicts(ev, "server-all")
	want := map[string]Verdict{
		"good": VerdictPass, "warned": VerdictUnexpected, "bad": VerdictUnexpected,
		"broken": VerdictExpected, "synthetic-only": VerdictSkipped, "empty": VerdictSkipped,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: verdict %q, want %q", k, got[k], v)
		}
	}
	if len(ev.Errors) != 2 {
		t.Errorf("errors = %q, want the two unexpected failures", ev.Errors)
	}
}

func TestEvaluateFlagsStaleAndUnmatchedEntries(t *testing.T) {
	b := mustBaseline(t, `server:
  - fixed  # waits for: something already built
  - never-ran  # waits for: x
  - partly:check-ok  # waits for: y
`)
	ok := scen("partly", statusSuccess)
	ok.Checks[0].ID = "check-ok"
	runs := []*Run{mkRun("server-all", scen("fixed", statusSuccess), ok)}

	partial := Evaluate(runs, b, false)
	if n := countContaining(partial.Errors, "stale"); n != 2 {
		t.Errorf("partial set: %d stale errors, want 2 (fixed, partly:check-ok): %q", n, partial.Errors)
	}
	if n := countContaining(partial.Errors, "matched no scenario"); n != 0 {
		t.Errorf("partial set must not flag unmatched entries: %q", partial.Errors)
	}
	complete := Evaluate(runs, b, true)
	if n := countContaining(complete.Errors, "matched no scenario"); n != 1 {
		t.Errorf("complete set: want never-ran flagged once: %q", complete.Errors)
	}
}

func TestEvaluateCheckLevelEntryCoversOnlyItsCheck(t *testing.T) {
	b := mustBaseline(t, "server:\n  - s:known  # waits for: x\n")
	sr := ScenarioResult{Scenario: "s", Checks: []Check{
		{ID: "known", Status: statusFailure},
		{ID: "ok", Status: statusSuccess},
	}}
	if v := verdicts(Evaluate([]*Run{mkRun("server-all", sr)}, b, false), "server-all")["s"]; v != VerdictExpected {
		t.Errorf("only the baselined check fails: verdict %q, want %q", v, VerdictExpected)
	}
	sr.Checks = append(sr.Checks, Check{ID: "other", Status: statusFailure})
	ev := Evaluate([]*Run{mkRun("server-all", sr)}, b, false)
	if v := verdicts(ev, "server-all")["s"]; v != VerdictUnexpected {
		t.Errorf("another check fails too: verdict %q, want %q", v, VerdictUnexpected)
	}
}

func TestEvaluateClientThatDidNotCompleteFails(t *testing.T) {
	sr := scen("tools_call", statusSuccess)
	sr.ClientOutcome = "the client did not report completion"
	ev := Evaluate([]*Run{mkRun("client-all", sr)}, &Baseline{}, false)
	if v := verdicts(ev, "client-all")["tools_call"]; v != VerdictUnexpected {
		t.Errorf("verdict %q, want %q although every check passed", v, VerdictUnexpected)
	}
}

func TestEvaluateNonZeroExitAndEmptyRunAreErrors(t *testing.T) {
	r := mkRun("server-2025-11-25")
	r.ExitCode = 1
	ev := Evaluate([]*Run{r}, &Baseline{}, false)
	if countContaining(ev.Errors, "exited with code 1") != 1 || countContaining(ev.Errors, "no scenario results") != 1 {
		t.Errorf("errors = %q", ev.Errors)
	}
}

func countContaining(list []string, sub string) int {
	n := 0
	for _, s := range list {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// writeRun lays out a run directory the way run.sh and the suite do.
func writeRun(t *testing.T, dir string, files map[string]any) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var data []byte
		switch c := content.(type) {
		case string:
			data = []byte(c)
		default:
			var err error
			if data, err = json.Marshal(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadRunReadsSuiteLayout(t *testing.T) {
	out := t.TempDir()
	ok := []Check{{ID: "x", Status: statusSuccess}}
	writeRun(t, filepath.Join(out, "server-all"), map[string]any{
		"exit-code": "0\n",
		"seconds":   "7\n",
		"checks/server-server-initialize-2026-11-22T05-36-41-622Z/checks.json": ok,
		"checks/server-tools-list-2026-11-22T05-36-42-001Z/checks.json":        ok,
	})
	writeRun(t, filepath.Join(out, "client-all"), map[string]any{
		"exit-code": "1",
		"seconds":   "3",
		"checks/initialize-2026-11-22T05-36-41-622Z/checks.json":         ok,
		"checks/initialize-2026-11-22T05-36-41-622Z/stderr.txt":          "log line\n" + outcome.Completed + "\n",
		"checks/auth/basic-cimd-2026-11-22T05-36-41-622Z/checks.json":    ok,
		"checks/auth/basic-cimd-2026-11-22T05-36-41-622Z/stderr.txt":     outcome.FailedPrefix + "no token\n",
		"checks/sse-retry-2026-11-22T05-36-41-622Z/checks.json":          ok,
		"checks/sse-retry-2026-11-22T05-36-41-622Z/stderr.txt":           "panic: boom\n",
		"checks/tools_call-2026-11-22T05-36-41-622Z/checks.json":         ok,
		"checks/tools_call-2026-11-22T05-36-41-622Z/unrelated-file.json": "{}",
	})

	srv, err := LoadRun(filepath.Join(out, "server-all"), "server-all")
	if err != nil {
		t.Fatal(err)
	}
	if srv.Seconds != 7 || len(srv.Scenarios) != 2 || srv.Scenarios[0].Scenario != "server-initialize" || srv.Scenarios[1].Scenario != "tools-list" {
		t.Fatalf("server run = %+v", srv)
	}

	cli, err := LoadRun(filepath.Join(out, "client-all"), "client-all")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range cli.Scenarios {
		got[s.Scenario] = s.ClientOutcome
	}
	if cli.ExitCode != 1 || len(got) != 4 {
		t.Fatalf("client run = %+v", cli)
	}
	if got["initialize"] != "" {
		t.Errorf("initialize: outcome %q, want completed", got["initialize"])
	}
	if !strings.Contains(got["auth/basic-cimd"], "no token") {
		t.Errorf("auth/basic-cimd: outcome %q, want the client's failure reason", got["auth/basic-cimd"])
	}
	if !strings.Contains(got["sse-retry"], "did not report completion") {
		t.Errorf("sse-retry: outcome %q, want not completed", got["sse-retry"])
	}
	if !strings.Contains(got["tools_call"], "not saved") {
		t.Errorf("tools_call: outcome %q, want missing stderr reported", got["tools_call"])
	}
}

func TestLoadRunWithoutExitCodeFails(t *testing.T) {
	if _, err := LoadRun(t.TempDir(), "server-all"); err == nil {
		t.Fatal("LoadRun accepted a run that never finished")
	}
}

func TestWriteMarkdownShowsEveryScenarioAndProblem(t *testing.T) {
	b := mustBaseline(t, "client:\n  - auth/x  # waits for: OAuth (issue 10)\n")
	ev := Evaluate([]*Run{
		mkRun("server-all", scen("tools-list", statusSuccess), scen("caching", statusFailure)),
		mkRun("client-all", withOutcome(scen("auth/x", statusFailure), "")),
	}, b, false)
	var md bytes.Buffer
	if err := WriteMarkdown(&md, ev, "0.2.0-alpha.12", "now"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| tools-list | 1 | 0 | 0 | 0 | pass |", "| caching | 0 | 1 | 0 | 0 | **FAIL** |",
		"| auth/x | 0 | 1 | 0 | 0 | baseline |", "OAuth (issue 10)", "Status: failing", "server-all: caching: FAILURE"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
}

func withOutcome(sr ScenarioResult, o string) ScenarioResult {
	sr.ClientOutcome = o
	return sr
}

func TestCommittedBaselineParses(t *testing.T) {
	f, err := os.Open("../baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := ParseBaseline(f); err != nil {
		t.Fatalf("conformance/baseline.yml: %v", err)
	}
}

package main

import (
	"fmt"
	"io"
	"strings"
)

// runCommands says, for RESULTS.md, what each run of run.sh invokes.
var runCommands = map[string]string{
	"server-2025-11-25": "server --requirements 2025-11-25",
	"server-2026-07-28": "server --requirements 2026-07-28",
	"server-all":        "server --suite all --expected-failures baseline.yml",
	"client-2025-11-25": "client --requirements 2025-11-25 --expected-failures baseline.yml",
	"client-2026-07-28": "client --requirements 2026-07-28 --expected-failures baseline.yml",
	"client-all":        "client --suite all --expected-failures baseline.yml",
}

// WriteMarkdown renders the evaluation as RESULTS.md.
func WriteMarkdown(w io.Writer, ev *Evaluation, suiteVersion, generated string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conformance results\n\n")
	fmt.Fprintf(&b, "Written by `conformance/run.sh` on %s with `@modelcontextprotocol/conformance@%s`.\n", generated, suiteVersion)
	fmt.Fprintf(&b, "Do not edit by hand: run `conformance/run.sh` to refresh it.\n\n")
	fmt.Fprintf(&b, "Verdicts: **pass**; **skipped** (nothing failed, but no real check passed: the suite had nothing it could test, so it does not count as passed);\n")
	fmt.Fprintf(&b, "**baseline** (fails, and `conformance/baseline.yml` names the feature it waits for); **FAIL** (fails, not expected).\n")
	fmt.Fprintf(&b, "A client scenario also fails when the client did not report completion, whatever its checks say.\n\n")

	if len(ev.Errors) == 0 {
		fmt.Fprintf(&b, "**Status: passing** (every failure is in the baseline).\n\n")
	} else {
		fmt.Fprintf(&b, "**Status: failing** (%d problem(s), listed at the end).\n\n", len(ev.Errors))
	}

	fmt.Fprintf(&b, "## Runs\n\n")
	fmt.Fprintf(&b, "| run | suite command | exit | seconds | pass | skipped | baseline | FAIL |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, run := range ev.Runs {
		c := counts(ev.Rows[run.Name])
		fmt.Fprintf(&b, "| %s | `%s` | %d | %d | %d | %d | %d | %d |\n", run.Name, runCommands[run.Name], run.ExitCode, run.Seconds,
			c[VerdictPass], c[VerdictSkipped], c[VerdictExpected], c[VerdictUnexpected])
	}
	b.WriteString("\n")

	for _, run := range ev.Runs {
		fmt.Fprintf(&b, "## %s\n\n", run.Name)
		fmt.Fprintf(&b, "| scenario | checks passed | failed | warnings | skipped | verdict |\n")
		fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---|\n")
		for _, row := range ev.Rows[run.Name] {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", row.Scenario, row.Passed, row.Failed, row.Warnings, row.Skipped, verdictCell(row.Verdict))
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "## Baseline\n\n")
	if len(ev.Entries) == 0 {
		fmt.Fprintf(&b, "The baseline is empty.\n\n")
	} else {
		fmt.Fprintf(&b, "| side | entry | waits for | failed in |\n|---|---|---|---|\n")
		for _, s := range ev.Entries {
			in := strings.Join(ev.entryRuns(s.Entry), ", ")
			switch {
			case !s.Ran:
				in = "not run"
			case !s.Failed:
				in = "**passes: stale**"
			case in == "":
				in = "(check-level entry)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.Side, s.Key(), escapeCell(s.Reason), in)
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "## Failures\n\n")
	any := false
	for _, run := range ev.Runs {
		for _, row := range ev.Rows[run.Name] {
			if len(row.Problems) == 0 {
				continue
			}
			any = true
			fmt.Fprintf(&b, "- **%s / %s** (%s):\n", run.Name, row.Scenario, row.Verdict)
			for _, p := range row.Problems {
				fmt.Fprintf(&b, "  - %s\n", escapeCell(p))
			}
		}
	}
	if !any {
		fmt.Fprintf(&b, "None.\n")
	}
	b.WriteString("\n")

	if len(ev.Errors) > 0 {
		fmt.Fprintf(&b, "## Problems\n\n")
		for _, e := range ev.Errors {
			fmt.Fprintf(&b, "- %s\n", escapeCell(e))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func verdictCell(v Verdict) string {
	if v == VerdictUnexpected {
		return "**FAIL**"
	}
	return string(v)
}

// escapeCell keeps a message from breaking the Markdown table or list.
func escapeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

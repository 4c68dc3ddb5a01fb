// Command report judges the outputs of conformance/run.sh against
// conformance/baseline.yml and writes conformance/RESULTS.md.
//
//	report -out DIR -baseline FILE [-results FILE] [-suite-version V] RUN...
//
// Each RUN names a directory under DIR holding exit-code, seconds and the
// suite's checks/**/checks.json. The tool exits 1 when any run exited
// non-zero, any scenario failed without a baseline entry, a client did not
// report completion, or a baseline entry is stale (its scenario now
// passes). Without -results it prints the Markdown to stdout.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// fullRunSet is every run run.sh knows; only an evaluation of all of them
// can tell that a baseline entry names no scenario at all.
var fullRunSet = []string{"server-2025-11-25", "server-2026-07-28", "server-all", "client-2025-11-25", "client-2026-07-28", "client-all"}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	outDir := fl.String("out", "", "directory holding one sub-directory per run (required)")
	baselinePath := fl.String("baseline", "", "baseline file (required)")
	resultsPath := fl.String("results", "", "write the Markdown report here instead of stdout")
	suiteVersion := fl.String("suite-version", "unknown", "version of the conformance suite, for the report")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *outDir == "" || *baselinePath == "" || fl.NArg() == 0 {
		return errors.New("usage: report -out DIR -baseline FILE [-results FILE] RUN [RUN ...]")
	}
	f, err := os.Open(*baselinePath)
	if err != nil {
		return err
	}
	baseline, err := ParseBaseline(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *baselinePath, err)
	}
	var runs []*Run
	for _, name := range fl.Args() {
		r, err := LoadRun(filepath.Join(*outDir, name), name)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	ev := Evaluate(runs, baseline, covers(fl.Args(), fullRunSet))
	var md bytes.Buffer
	if err := WriteMarkdown(&md, ev, *suiteVersion, time.Now().UTC().Format("2006-01-02 15:04 UTC")); err != nil {
		return err
	}
	if *resultsPath == "" {
		os.Stdout.Write(md.Bytes())
	} else if err := os.WriteFile(*resultsPath, md.Bytes(), 0o644); err != nil {
		return err
	}
	for _, e := range ev.Errors {
		fmt.Fprintln(os.Stderr, "report:", e)
	}
	if len(ev.Errors) > 0 {
		return fmt.Errorf("%d problem(s); see the report", len(ev.Errors))
	}
	return nil
}

// covers reports whether names includes every element of want.
func covers(names, want []string) bool {
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/weftmcp/weft/conformance/internal/outcome"
)

// Check is one entry of a scenario's checks.json as the suite writes it.
type Check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// Statuses the suite gives a check.
const (
	statusSuccess = "SUCCESS"
	statusFailure = "FAILURE"
	statusWarning = "WARNING"
	statusSkipped = "SKIPPED"
)

// ScenarioResult is what one scenario produced in one run.
type ScenarioResult struct {
	Scenario string
	Checks   []Check
	// ClientOutcome is set for client scenarios: "" when the client
	// reported completion, otherwise why it did not (it failed, crashed or
	// was killed by the suite's timeout).
	ClientOutcome string
}

// Run is one invocation of the suite, as run.sh left it on disk.
type Run struct {
	Name      string // e.g. "server-all"
	Side      string // "server" or "client"
	ExitCode  int
	Seconds   int
	Scenarios []ScenarioResult
}

// timestampSuffix is what the suite appends to each result directory name.
var timestampSuffix = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// LoadRun reads the outputs of one run from dir (dir/exit-code,
// dir/seconds and dir/checks/**/checks.json).
func LoadRun(dir, name string) (*Run, error) {
	side, _, ok := strings.Cut(name, "-")
	if !ok || (side != "server" && side != "client") {
		return nil, fmt.Errorf("run %q: name must start with \"server-\" or \"client-\"", name)
	}
	r := &Run{Name: name, Side: side}
	var err error
	if r.ExitCode, err = readInt(filepath.Join(dir, "exit-code")); err != nil {
		return nil, fmt.Errorf("run %s did not finish (no exit code): %w", name, err)
	}
	if r.Seconds, err = readInt(filepath.Join(dir, "seconds")); err != nil {
		return nil, fmt.Errorf("run %s: %w", name, err)
	}
	checksDir := filepath.Join(dir, "checks")
	err = filepath.WalkDir(checksDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "checks.json" {
			return nil
		}
		rel, err := filepath.Rel(checksDir, filepath.Dir(path))
		if err != nil {
			return err
		}
		res, err := loadScenario(path, scenarioName(side, filepath.ToSlash(rel)))
		if err != nil {
			return err
		}
		if side == "client" {
			res.ClientOutcome = clientOutcome(filepath.Join(filepath.Dir(path), "stderr.txt"))
		}
		r.Scenarios = append(r.Scenarios, res)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s: reading results: %w", name, err)
	}
	sort.Slice(r.Scenarios, func(i, j int) bool { return r.Scenarios[i].Scenario < r.Scenarios[j].Scenario })
	return r, nil
}

// scenarioName recovers the scenario from a result directory name such as
// "server-tools-list-2026-11-22T05-36-41-622Z" or "auth/basic-cimd-<ts>".
func scenarioName(side, rel string) string {
	name := timestampSuffix.ReplaceAllString(rel, "")
	if side == "server" {
		name = strings.TrimPrefix(name, "server-")
	}
	return name
}

func loadScenario(path, scenario string) (ScenarioResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ScenarioResult{}, err
	}
	var checks []Check
	if err := json.Unmarshal(data, &checks); err != nil {
		return ScenarioResult{}, fmt.Errorf("%s: not a checks.json array: %w", path, err)
	}
	return ScenarioResult{Scenario: scenario, Checks: checks}, nil
}

// clientOutcome reads the client's stderr and returns "" when its last
// line says the scenario completed, or a description of what happened.
func clientOutcome(stderrPath string) string {
	data, err := os.ReadFile(stderrPath)
	if err != nil {
		return "the client's stderr was not saved (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	switch {
	case last == outcome.Completed:
		return ""
	case strings.HasPrefix(last, outcome.FailedPrefix):
		return "the client failed: " + strings.TrimPrefix(last, outcome.FailedPrefix)
	default:
		return "the client did not report completion (it crashed, or the suite killed it at its timeout)"
	}
}

func readInt(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

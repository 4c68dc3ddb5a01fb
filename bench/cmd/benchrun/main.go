// Command benchrun is the side-by-side benchmark: it builds every server
// under servers/, loads each over stdio and Streamable HTTP at 1 and 32 calls
// in flight, measures memory per idle legacy HTTP session, and writes
// RESULTS.md (medians and ratios) plus the raw figures under results/raw/.
//
// Run it from the bench directory: go run ./cmd/benchrun. Everything runs on
// 127.0.0.1, and the whole run is bounded by -timeout.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// modulePath is the bench module, which the runner must be started in.
const modulePath = "github.com/weftmcp/weft/bench"

func main() {
	var (
		s       settings
		only    = flag.String("only", "", "comma-separated implementations to run (default: all)")
		out     = flag.String("out", "RESULTS.md", "report file, relative to the bench directory")
		timeout = flag.Duration("timeout", 30*time.Minute, "stop the whole run after this long")
		from    = flag.String("from", "", "measure nothing: write the report again from this raw results file (results/raw/*.json), "+
			"for instance after editing "+findingsFile)
	)
	flag.IntVar(&s.Rounds, "rounds", 5, "rounds; every figure is a median over them")
	flag.DurationVar(&s.Warmup, "warmup", 500*time.Millisecond, "warm-up of each row, not measured")
	flag.DurationVar(&s.Window, "window", 2*time.Second, "measured window of each row")
	flag.IntVar(&s.Sessions, "sessions", 1000, "idle legacy sessions opened for the memory figure")
	flag.StringVar(&s.ProfileDir, "cpuprofile", "", "have every server write a CPU profile of each row into this directory "+
		"(profiling costs CPU: use it to find causes, not for the figures)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("the run took longer than -timeout %s", *timeout))
	defer cancel()

	var err error
	if *from != "" {
		err = rewrite(logger, *from, *out)
	} else {
		err = run(ctx, logger, s, *only, *out)
	}
	if err != nil {
		logger.Error("benchmark failed", "err", err)
		cancel()
		stop()
		os.Exit(1)
	}
}

// run does the whole benchmark.
func run(ctx context.Context, logger *slog.Logger, s settings, only, out string) error {
	if s.Rounds < 1 || s.Sessions < 1 || s.Window <= 0 || s.Warmup < 0 {
		return fmt.Errorf("need -rounds ≥ 1, -sessions ≥ 1, -window > 0 and -warmup ≥ 0")
	}
	moduleDir, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := checkModuleDir(moduleDir); err != nil {
		return err
	}
	impls, err := selectImplementations(only)
	if err != nil {
		return err
	}
	r := &results{Started: time.Now(), Settings: s, Impls: impls, Binaries: map[string]binary{}}
	r.Machine = describeMachine(ctx, moduleDir)

	if s.ProfileDir != "" {
		if s.ProfileDir, err = filepath.Abs(s.ProfileDir); err != nil {
			return err
		}
		if err := os.MkdirAll(s.ProfileDir, 0o755); err != nil {
			return fmt.Errorf("make the profile directory: %w", err)
		}
	}
	binDir := filepath.Join(moduleDir, "..", ".cache", "bench", "bin")
	for _, impl := range impls {
		logger.Info("building", "impl", impl.Name, "into", binDir)
		if r.Binaries[impl.Name], err = build(ctx, moduleDir, binDir, impl); err != nil {
			return err
		}
	}
	rows := len(cells()) * len(impls)
	for _, impl := range impls {
		if impl.TaskArgs != nil {
			rows += len(cells())
		}
	}
	perRow := s.Warmup + s.Window
	logger.Info("measuring", "rounds", s.Rounds, "rows", rows,
		"expected", (time.Duration(s.Rounds*rows)*perRow).Round(time.Second).String()+" plus start-up and idle sessions")

	opt := loadgen.Options{Warmup: s.Warmup, Window: s.Window}
	for round := range s.Rounds {
		order := rotate(impls, round)
		for _, c := range cells() {
			for _, impl := range order {
				res, err := measureThroughput(ctx, impl, r.Binaries[impl.Name], c, opt, s.profile("echo", impl, c, round))
				if err != nil {
					return fmt.Errorf("round %d, %s, %s: %w", round+1, c, impl.Name, err)
				}
				logger.Info("row", "round", round+1, "cell", c.String(), "impl", impl.Name,
					"req/s", int(res.PerSecond), "p50", res.P50, "p99", res.P99, "cpu/req", res.CPUPerRequest, "checked", res.Checked)
				r.Throughput = append(r.Throughput, throughputRun{Round: round + 1, Impl: impl.Name, Cell: c, Result: res})
			}
		}
		for _, c := range cells() {
			for _, impl := range order {
				if impl.TaskArgs == nil {
					continue
				}
				res, err := measureTaskLife(ctx, impl, r.Binaries[impl.Name], c, opt, s.profile("tasks", impl, c, round))
				if err != nil {
					return fmt.Errorf("round %d, task life, %s, %s: %w", round+1, c, impl.Name, err)
				}
				logger.Info("task life", "round", round+1, "cell", c.String(), "impl", impl.Name,
					"tasks/s", int(res.PerSecond), "p50", res.P50, "p99", res.P99, "cpu/task", res.CPUPerRequest, "polls/task", res.PollsPerTask)
				r.TaskLife = append(r.TaskLife, taskRun{Round: round + 1, Impl: impl.Name, Cell: c, Result: res})
			}
		}
		for _, impl := range order {
			res, err := measureSessions(ctx, impl, r.Binaries[impl.Name], s.Sessions)
			if err != nil {
				return fmt.Errorf("round %d, idle sessions, %s: %w", round+1, impl.Name, err)
			}
			logger.Info("idle sessions", "round", round+1, "impl", impl.Name, "per session bytes", int(res.PerSession))
			r.Sessions = append(r.Sessions, sessionRun{Round: round + 1, Impl: impl.Name, Result: res})
		}
	}
	r.Elapsed = time.Since(r.Started)

	if err := writeRaw(moduleDir, r); err != nil {
		return err
	}
	path, err := publish(moduleDir, r, out)
	if err != nil {
		return err
	}
	logger.Info("done", "report", path, "took", r.Elapsed.Round(time.Second))
	return nil
}

// rewrite writes the report again from the raw results in file, with the
// findings as they are now.
func rewrite(logger *slog.Logger, file, out string) error {
	moduleDir, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := checkModuleDir(moduleDir); err != nil {
		return err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read the raw results: %w", err)
	}
	var r results
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s holds no raw results: %w", file, err)
	}
	path, err := publish(moduleDir, &r, out)
	if err != nil {
		return err
	}
	logger.Info("rewritten", "report", path, "from", file)
	return nil
}

// publish writes the report of r, with the findings of findings.md, to out
// (relative to moduleDir), and returns its path.
func publish(moduleDir string, r *results, out string) (string, error) {
	var err error
	if r.Findings, err = readFindings(moduleDir); err != nil {
		return "", err
	}
	var report bytes.Buffer
	if err := writeReport(&report, r); err != nil {
		return "", err
	}
	path := out
	if !filepath.IsAbs(path) {
		path = filepath.Join(moduleDir, out)
	}
	if err := os.WriteFile(path, report.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write the report: %w", err)
	}
	return path, nil
}

// findingsFile holds the hand-written analysis the report includes.
const findingsFile = "findings.md"

// readFindings returns the contents of findings.md in the bench directory,
// or "" if there is none.
func readFindings(moduleDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(moduleDir, findingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", findingsFile, err)
	}
	return strings.TrimSpace(string(data)), nil
}

// checkModuleDir makes sure dir is the bench module's root.
func checkModuleDir(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err == nil {
		first, _, _ := strings.Cut(string(data), "\n")
		if strings.TrimSpace(first) == "module "+modulePath {
			return nil
		}
	}
	return errors.New("run benchrun from the bench directory: cd bench && go run ./cmd/benchrun")
}

// selectImplementations returns the implementations named in only (comma
// separated), in table order, or all of them if only is empty.
func selectImplementations(only string) ([]implementation, error) {
	all := implementations()
	if only == "" {
		return all, nil
	}
	wanted := strings.Split(only, ",")
	for _, name := range wanted {
		if !slices.ContainsFunc(all, func(i implementation) bool { return i.Name == name }) {
			return nil, fmt.Errorf("-only names %q, which is not an implementation", name)
		}
	}
	return slices.DeleteFunc(all, func(i implementation) bool { return !slices.Contains(wanted, i.Name) }), nil
}

// rotate returns impls starting at position round (wrapping), so no
// implementation always goes first.
func rotate(impls []implementation, round int) []implementation {
	k := round % len(impls)
	return append(slices.Clone(impls[k:]), impls[:k]...)
}

// writeRaw saves every figure of the run as JSON under results/raw/.
func writeRaw(moduleDir string, r *results) error {
	dir := filepath.Join(moduleDir, "results", "raw")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode raw results: %w", err)
	}
	path := filepath.Join(dir, r.Started.UTC().Format("20060102T150405Z")+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write raw results: %w", err)
	}
	return nil
}

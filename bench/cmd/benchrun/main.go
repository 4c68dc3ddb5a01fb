// Command benchrun is the side-by-side benchmark: it builds every server
// under servers/ and measures, in interleaved rounds, echo calls on every
// implementation over stdio and Streamable HTTP at 1 and 32 calls in
// flight, the task life on every store and task surface, the cost of
// OpenTelemetry tracing and of legacy sessions on a shared store, and the
// memory per idle legacy HTTP session. It writes RESULTS.md (every figure as
// min, median and max over the rounds, and the targets) plus the raw
// figures under results/raw/.
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
	"strings"
	"syscall"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/placement"
)

// modulePath is the bench module, which the runner must be started in.
const modulePath = "github.com/weftmcp/weft/bench"

func main() {
	var (
		s       settings
		only    = flag.String("only", "", "comma-separated implementations to run (default: all)")
		rows    = flag.String("rows", "", "comma-separated sections to run: "+joinNames(sections())+" (default: all)")
		store   = flag.String("store", "", "comma-separated stores for the task life and shared-session rows: "+strings.Join(placement.Kinds(), ", ")+" (default: all)")
		out     = flag.String("out", "RESULTS.md", "report file, relative to the bench directory")
		timeout = flag.Duration("timeout", 90*time.Minute, "stop the whole run after this long")
		from    = flag.String("from", "", "measure nothing: write the report again from this raw results file (results/raw/*.json), "+
			"for instance after editing "+findingsFile)
		compare = flag.String("compare", "", "measure nothing: given two raw results files, FIRST,SECOND, list the figures whose ranges do "+
			"not overlap and the targets whose verdicts differ (run twice before publishing)")
	)
	flag.IntVar(&s.Rounds, "rounds", 5, "rounds; every figure is given as min, median and max over them")
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
	switch {
	case *compare != "":
		err = compareFiles(*compare)
	case *from != "":
		err = rewrite(logger, *from, *out)
	default:
		var sel selection
		if sel, err = parseSelection(*only, *rows, *store); err == nil {
			s.Sections, s.Stores = sel.Sections, sel.Stores
			err = run(ctx, logger, s, sel, *out)
		}
	}
	if err != nil {
		logger.Error("benchmark failed", "err", err)
		cancel()
		stop()
		os.Exit(1)
	}
}

// parseSelection reads the -only, -rows and -store flags.
func parseSelection(only, rows, store string) (selection, error) {
	var (
		sel selection
		err error
	)
	if sel.Impls, err = selectImplementations(only); err != nil {
		return sel, err
	}
	if sel.Sections, err = parseList(rows, "-rows", sections()); err != nil {
		return sel, err
	}
	sel.Stores, err = parseList(store, "-store", placement.Kinds())
	return sel, err
}

// run does the whole benchmark.
func run(ctx context.Context, logger *slog.Logger, s settings, sel selection, out string) error {
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
	r := &results{Started: time.Now(), Settings: s, Impls: sel.Impls, Binaries: map[string]binary{}}
	r.Machine = describeMachine(ctx, moduleDir)

	if s.ProfileDir != "" {
		if s.ProfileDir, err = filepath.Abs(s.ProfileDir); err != nil {
			return err
		}
		r.Settings.ProfileDir = s.ProfileDir
		if err := os.MkdirAll(s.ProfileDir, 0o755); err != nil {
			return fmt.Errorf("make the profile directory: %w", err)
		}
	}
	binDir := filepath.Join(moduleDir, "..", ".cache", "bench", "bin")
	// SQLite files go on the checkout's disk, as a user's would, not in a
	// temporary folder that may be a tmpfs where a sync costs nothing.
	sqliteDir := filepath.Join(moduleDir, "..", ".cache", "bench", "sqlite")
	if err := os.MkdirAll(sqliteDir, 0o755); err != nil {
		return fmt.Errorf("make the folder for SQLite stores: %w", err)
	}
	r.Machine.SQLiteDisk = describeDisk(sqliteDir)
	for _, impl := range sel.Impls {
		logger.Info("building", "impl", impl.Name, "into", binDir)
		if r.Binaries[impl.Name], err = build(ctx, moduleDir, binDir, impl); err != nil {
			return err
		}
	}
	perRow := s.Warmup + s.Window
	rows := len(sel.plan(0))
	logger.Info("measuring", "rounds", s.Rounds, "rows per round", rows, "load average", loadAverage(),
		"expected", (time.Duration(s.Rounds*rows)*perRow).Round(time.Second).String()+" plus start-up and idle sessions")

	opt := loadgen.Options{Warmup: s.Warmup, Window: s.Window}
	for round := range s.Rounds {
		tripsMeasured := false
		for _, k := range sel.plan(round) {
			impl, _ := r.impl(k.Impl)
			if k.Section == sectionTasks && k.Impl == subject && !tripsMeasured {
				trips, err := measureTripFloors(ctx, sel.Stores, s.Warmup, s.Window, round+1)
				if err != nil {
					return fmt.Errorf("round %d: %w", round+1, err)
				}
				for _, t := range trips {
					logger.Info("bare round trip", "round", round+1, "store", t.Store, "trips", t.Cost.Trips, "cpu/trip", t.Cost.CPUPerTrip)
				}
				r.Trips, tripsMeasured = append(r.Trips, trips...), true
			}
			if k.Section == sectionIdle {
				res, err := measureSessions(ctx, impl, r.Binaries[impl.Name], s.Sessions)
				if err != nil {
					return fmt.Errorf("round %d, idle sessions, %s: %w", round+1, impl.Name, err)
				}
				logger.Info("idle sessions", "round", round+1, "impl", impl.Name, "per session bytes", int(res.PerSession))
				r.Sessions = append(r.Sessions, sessionRun{Round: round + 1, Impl: impl.Name, Result: res})
				continue
			}
			place := rowPlace{SQLiteDir: sqliteDir, Profile: s.profile(k, round)}
			res, stalled, err := measureAgainIfPeerStalls(k, func() (rowResult, error) {
				return measureRow(ctx, k, impl, r.Binaries[impl.Name], opt, place)
			})
			if stalled != nil {
				logger.Warn("a peer's server stopped answering; measured the row again", "round", round+1, "row", k.String(), "err", stalled)
				r.Remeasured = append(r.Remeasured, fmt.Sprintf("round %d, %s: %v", round+1, k, stalled))
			}
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", round+1, k, err)
			}
			logger.Info("row", "round", round+1, "row", k.String(), "per s", int(res.PerSecond), "p50", res.P50, "p99", res.P99,
				"cpu/op", res.CPUPerRequest, "store cpu/op", res.StoreCPUPerRequest, "requests/task", res.RequestsPerTask)
			r.Runs = append(r.Runs, rowRun{Round: round + 1, Key: k, Result: res})
		}
		r.RoundLoads = append(r.RoundLoads, loadAverage())
		logger.Info("round done", "round", round+1, "load average", r.RoundLoads[round])
	}
	r.Elapsed = time.Since(r.Started)
	r.LoadAverageEnd = loadAverage()

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

// measureAgainIfPeerStalls measures the row k with measure, and once
// more, on the fresh server measure starts, if another library's server
// stopped answering (go-sdk's stdio server did, once in a few runs);
// stalled is then the first attempt's error. weft's row is never measured
// again: a stall of weft's is a bug the run must show.
func measureAgainIfPeerStalls(k rowKey, measure func() (rowResult, error)) (res rowResult, stalled, err error) {
	res, err = measure()
	if err == nil || k.Impl == subject || !errors.Is(err, loadgen.ErrStalled) {
		return res, nil, err
	}
	res, again := measure()
	return res, err, again
}

// compareFiles prints the comparison of the two raw results files in
// files (FIRST,SECOND) to standard output.
func compareFiles(files string) error {
	first, second, ok := strings.Cut(files, ",")
	if !ok {
		return fmt.Errorf("-compare %q needs two raw results files, FIRST,SECOND", files)
	}
	a, err := readRaw(first)
	if err != nil {
		return err
	}
	b, err := readRaw(second)
	if err != nil {
		return err
	}
	return writeComparison(os.Stdout, a, b)
}

// readRaw reads a raw results file.
func readRaw(file string) (*results, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read the raw results: %w", err)
	}
	var r results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s holds no raw results: %w", file, err)
	}
	return &r, nil
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
	r, err := readRaw(file)
	if err != nil {
		return err
	}
	path, err := publish(moduleDir, r, out)
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

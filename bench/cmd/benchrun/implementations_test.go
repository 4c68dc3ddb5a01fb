package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/placement"
)

// TestEveryRowRuns builds every server in the table and runs every row of a
// round (every section, every store) for a very short window, so a broken
// server, flag, store or library upgrade shows here rather than mid-run.
// Rows on Redis or PostgreSQL are skipped when the service does not answer,
// except under CI=true, where that fails.
func TestEveryRowRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every server")
	}
	moduleDir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkModuleDir(moduleDir); err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	bins := map[string]binary{}
	for _, impl := range implementations() {
		bin, err := build(t.Context(), moduleDir, binDir, impl)
		if err != nil {
			t.Fatal(err)
		}
		if impl.Library != "" && bin.LibraryVersion == "" {
			t.Errorf("no version of %s found in the binary of %s", impl.Library, impl.Name)
		}
		bins[impl.Name] = bin
	}
	unavailable := map[string]error{}
	for _, kind := range placement.Kinds() {
		if err := reachable(t.Context(), kind); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("store %s: %v", kind, err)
			}
			unavailable[kind] = err
		}
	}
	sel := selection{Impls: implementations(), Sections: sections(), Stores: placement.Kinds()}
	opt := loadgen.Options{Warmup: 20 * time.Millisecond, Window: 150 * time.Millisecond}
	for _, k := range sel.plan(0) {
		t.Run(k.String(), func(t *testing.T) {
			if err := unavailable[k.Store]; err != nil {
				t.Skipf("store %s: %v", k.Store, err)
			}
			impl, _ := (&results{Impls: sel.Impls}).impl(k.Impl)
			if k.Section == sectionIdle {
				s, err := measureSessions(t.Context(), impl, bins[k.Impl], 5)
				if err != nil {
					t.Fatal(err)
				}
				if s.Sessions != 5 || s.Before <= 0 || s.After <= 0 {
					t.Errorf("idle sessions measured %+v", s)
				}
				return
			}
			o := opt
			if k.Store != "" && k.Store != "memory" {
				o.Window = time.Second // a durable store's task may take longer than the window above
			}
			r, err := measureRow(t.Context(), k, impl, bins[k.Impl], o, rowPlace{SQLiteDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests == 0 || r.Checked != r.Sent {
				t.Errorf("%d finished in the window, %d of %d checked", r.Requests, r.Checked, r.Sent)
			}
			if k.Section == sectionTasks {
				// Besides its polls, a life has a create, and on the
				// legacy surface a tasks/result.
				others := 1.0
				if k.Surface == mcpwire.LegacyTasks {
					others = 2
				}
				if r.PollsPerTask < 1 || math.Abs(r.RequestsPerTask-r.PollsPerTask-others) > 1e-9 {
					t.Errorf("%.2f polls and %.2f requests per task; want at least one poll and %.0f other requests", r.PollsPerTask, r.RequestsPerTask, others)
				}
			}
			if k.Store == "redis" && (r.StoreCommandsPerRequest <= 0 || r.StoreRoundTripsPerRequest <= 0) {
				t.Errorf("a row on Redis counted %.2f Redis commands and %.2f round trips per operation", r.StoreCommandsPerRequest, r.StoreRoundTripsPerRequest)
			}
			// A request of a known session makes one round trip (a Touch),
			// by the server's own count of both (issue 17); a request in
			// flight at either end of the window may be counted without
			// its round trip.
			if k.Section == sectionSharedSessions && k.Store == "redis" && math.Abs(r.StoreRequestRoundTripsPerRequest-1) > 0.05 {
				t.Errorf("a shared-session row on Redis counted %v round trips per request in serving requests; want 1", r.StoreRequestRoundTripsPerRequest)
			}
		})
	}
}

// reachable reports whether the store of kind can be used.
func reachable(ctx context.Context, kind string) error {
	p, err := placement.New(ctx, kind, "")
	if err != nil {
		return err
	}
	return p.Remove(ctx)
}

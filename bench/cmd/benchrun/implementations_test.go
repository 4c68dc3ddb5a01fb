package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
)

// TestEveryImplementationServesTheBenchmark builds every server in the table
// and puts each through a very short version of every measurement (the task
// life too, for those with tasks), so a broken server, flag or library
// upgrade shows here rather than mid-run.
func TestEveryImplementationServesTheBenchmark(t *testing.T) {
	moduleDir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkModuleDir(moduleDir); err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	opt := loadgen.Options{Warmup: 20 * time.Millisecond, Window: 100 * time.Millisecond}
	for _, impl := range implementations() {
		t.Run(impl.Name, func(t *testing.T) {
			bin, err := build(t.Context(), moduleDir, binDir, impl)
			if err != nil {
				t.Fatal(err)
			}
			if impl.Library != "" && bin.LibraryVersion == "" {
				t.Errorf("no version of %s found in the binary", impl.Library)
			}
			for _, c := range []cell{{transportStdio, 2}, {transportHTTP, 2}} {
				r, err := measureThroughput(t.Context(), impl, bin, c, opt, "")
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				if r.Requests == 0 || r.Checked != r.Sent {
					t.Errorf("%s: %d requests in the window, %d of %d answers checked", c, r.Requests, r.Checked, r.Sent)
				}
			}
			if impl.TaskArgs != nil {
				for _, c := range []cell{{transportStdio, 2}, {transportHTTP, 2}} {
					r, err := measureTaskLife(t.Context(), impl, bin, c, opt, "")
					if err != nil {
						t.Fatalf("task life, %s: %v", c, err)
					}
					if r.Requests == 0 || r.Checked != r.Sent || r.PollsPerTask < 1 {
						t.Errorf("task life, %s: %d tasks in the window, %d of %d checked, %.2f polls per task",
							c, r.Requests, r.Checked, r.Sent, r.PollsPerTask)
					}
				}
			}
			s, err := measureSessions(t.Context(), impl, bin, 5)
			if err != nil {
				t.Fatalf("idle sessions: %v", err)
			}
			if s.Sessions != 5 || s.Before <= 0 || s.After <= 0 {
				t.Errorf("idle sessions measured %+v", s)
			}
		})
	}
}

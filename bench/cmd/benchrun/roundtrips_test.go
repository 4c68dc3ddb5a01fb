package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weftmcp/weft/bench/internal/proc"
)

func TestParseRoundTripsReadsBothCounts(t *testing.T) {
	all, background, requests, err := parseRoundTrips("1234 56 789")
	if err != nil || all != 1234 || background != 56 || requests != 789 {
		t.Fatalf(`parseRoundTrips("1234 56 789") = %d, %d, %d, %v; want 1234, 56, 789`, all, background, requests, err)
	}
	// A server built before the background count was reported, and lines
	// that cannot be counts, are refused rather than misread.
	for _, line := range []string{"1234", "1234 56", "", "12 x 3", "5 6 7 8", "5 9 1", "-1 0 1", "5 1 -1"} {
		if _, _, _, err := parseRoundTrips(line); err == nil {
			t.Errorf("parseRoundTrips(%q) succeeded; want an error", line)
		}
	}
}

// A server that dies of the SIGUSR1 asking for its counts (one that has
// no handler for it yet, or not built by this harness) is reported as
// exited, not as slow.
func TestRoundTripCounterSaysWhenTheServerDied(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("the test runs sleep(1) as a server: %v", err)
	}
	p, _, _, err := proc.StartStdio(proc.Command{Path: sleep, Args: []string{"600"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	c := &roundTripCounter{file: filepath.Join(t.TempDir(), "trips"), server: p}
	if err := os.WriteFile(c.file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = c.read(t.Context())
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "user defined signal 1") {
		t.Fatalf("reading the counts of a server that SIGUSR1 kills: %v; want an error saying it exited of that signal", err)
	}
}

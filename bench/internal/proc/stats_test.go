//go:build linux

package proc

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseCPUCountsFieldsAfterTheCommandName(t *testing.T) {
	// A command name may hold spaces and parentheses; utime is 250 ticks
	// and stime 50, fields 14 and 15.
	stat := []byte("4242 (we ird) (name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 99 1000 200 18446744073709551615\n")
	got, err := parseCPU(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; got != want {
		t.Errorf("parseCPU = %s, want %s (300 ticks of 10 ms)", got, want)
	}
	if _, err := parseCPU([]byte("4242 (short) S 1 2")); err == nil {
		t.Error("parseCPU accepted a stat line with too few fields")
	}
}

func TestStatusKiBReadsTheNamedLineInBytes(t *testing.T) {
	status := []byte("Name:\tbare\nVmHWM:\t   12345 kB\nVmRSS:\t    2048 kB\n")
	for key, want := range map[string]int64{"VmHWM:": 12345 << 10, "VmRSS:": 2048 << 10} {
		got, err := statusKiB(status, key)
		if err != nil || got != want {
			t.Errorf("statusKiB(%s) = %d, %v; want %d", key, got, err, want)
		}
	}
	if _, err := statusKiB(status, "VmSwap:"); err == nil {
		t.Error("statusKiB found a line that is not there")
	}
}

func TestReadStatsOfThisProcess(t *testing.T) {
	s, err := ReadStats(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS <= 0 || s.PeakRSS < s.RSS {
		t.Errorf("RSS %d and peak %d: want 0 < RSS ≤ peak", s.RSS, s.PeakRSS)
	}
	if s.CPU < 0 {
		t.Errorf("CPU time %s is negative", s.CPU)
	}
}

func TestHeadBufferKeepsOnlyItsLimit(t *testing.T) {
	b := newHeadBuffer(5)
	b.Write([]byte("abc"))
	b.Write([]byte("defgh"))
	if got, want := b.String(), "abcde… (3 more bytes)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestStartHTTPReportsAServerThatExits(t *testing.T) {
	_, _, err := StartHTTP(t.Context(), Command{Path: "/bin/sh", Args: []string{"-c", "echo cannot listen >&2; exit 3"}})
	if err == nil || !strings.Contains(err.Error(), "exited before listening") || !strings.Contains(err.Error(), "cannot listen") {
		t.Fatalf("StartHTTP of a server that exits: %v; want the exit and its standard error", err)
	}
}

func TestStopReportsAServerThatExitedEarly(t *testing.T) {
	p, _, fromServer, err := StartStdio(Command{Path: "/bin/sh", Args: []string{"-c", "exit 0"}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := fromServer.Read(buf); err == nil {
		t.Fatal("read output from a server that writes nothing")
	}
	<-p.exited
	if err := p.Stop(); err == nil || !strings.Contains(err.Error(), "before it was told to stop") {
		t.Fatalf("Stop after the server exited on its own: %v", err)
	}
}

func TestStopEndsAStdioServerByClosingItsInput(t *testing.T) {
	p, _, _, err := StartStdio(Command{Path: "/bin/cat"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop of cat, which exits when its input ends: %v", err)
	}
}

func TestCommandNameIsBetweenTheFirstAndLastParenthesis(t *testing.T) {
	for stat, want := range map[string]string{
		"1 (redis-server) S 0":    "redis-server",
		"2 (we ird) (name) S 1 2": "we ird) (name",
		"3 postgres S 1":          "",
		"4 ()":                    "",
	} {
		if got := commandName([]byte(stat)); got != want {
			t.Errorf("commandName(%q) = %q, want %q", stat, got, want)
		}
	}
}

// The test binary's own command name finds at least this process, whose
// CPU time is counted.
func TestCommandCPUFindsThisProcess(t *testing.T) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	cpu, n, err := CommandCPU(commandName(stat))
	if err != nil || n < 1 || cpu < 0 {
		t.Errorf("CommandCPU of this process's name = %s over %d processes, %v; want at least this one", cpu, n, err)
	}
	if _, n, _ := CommandCPU("no such command, surely"); n != 0 {
		t.Errorf("CommandCPU found %d processes of a name no process has", n)
	}
}

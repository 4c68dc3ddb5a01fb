package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// machine describes where a run happened, for the report.
type machine struct {
	CPU         string
	LogicalCPUs int
	Memory      string
	Kernel      string
	Go          string
	LoadAverage string
	Commit      string
	// SQLiteDisk says where the SQLite stores' files are and on what
	// kind of file system, since a sync costs what that disk makes it cost.
	SQLiteDisk string `json:",omitempty"`
}

// describeMachine reads the machine's description from /proc and git.
func describeMachine(ctx context.Context, moduleDir string) machine {
	return machine{
		CPU:         cpuModel(),
		LogicalCPUs: runtime.NumCPU(),
		Memory:      memTotal(),
		Kernel:      "Linux " + readTrimmed("/proc/sys/kernel/osrelease"),
		Go:          runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		LoadAverage: loadAverage(),
		Commit:      gitCommit(ctx, moduleDir),
	}
}

// fileSystems names the file system types worth telling apart, by the
// magic number statfs(2) returns.
var fileSystems = map[int64]string{
	0xEF53: "ext4", 0x01021994: "tmpfs (a sync costs nothing)", 0x58465342: "xfs", 0x9123683E: "btrfs",
	0x794C7630: "overlayfs", 0x2FC12FC1: "zfs", 0x6969: "nfs",
}

// describeDisk names dir and the type of the file system it is on.
func describeDisk(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(abs, &st); err != nil {
		return abs + " (file system unknown: " + err.Error() + ")"
	}
	name, ok := fileSystems[int64(st.Type)]
	if !ok {
		name = fmt.Sprintf("file system type %#x", st.Type)
	}
	return abs + ", on " + name
}

// readTrimmed returns a small file's contents without surrounding space, or
// a note saying it could not be read.
func readTrimmed(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(data))
}

// loadAverage returns the 1, 5 and 15 minute load averages.
func loadAverage() string {
	fields := strings.Fields(readTrimmed("/proc/loadavg"))
	if len(fields) < 3 {
		return strings.Join(fields, " ")
	}
	return strings.Join(fields[:3], " ")
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if key, value, ok := strings.Cut(lines.Text(), ":"); ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown (no model name in /proc/cpuinfo)"
}

// memTotal returns MemTotal from /proc/meminfo in GiB.
func memTotal() string {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for line := range strings.Lines(string(data)) {
		var kib int64
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kib); err == nil {
			return fmt.Sprintf("%.1f GiB", float64(kib)/(1<<20))
		}
	}
	return "unknown (no MemTotal in /proc/meminfo)"
}

// gitCommit names the checkout's commit, noting uncommitted changes.
func gitCommit(ctx context.Context, dir string) string {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "unknown (git rev-parse failed: " + err.Error() + ")"
	}
	commit := string(bytes.TrimSpace(out))
	cmd = exec.CommandContext(ctx, "git", "status", "--porcelain")
	cmd.Dir = dir
	if status, err := cmd.Output(); err == nil && len(bytes.TrimSpace(status)) != 0 {
		commit += " with uncommitted changes"
	}
	return commit
}

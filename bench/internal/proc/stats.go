//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: Linux reports
// them in clock ticks of 1/100 s on every architecture (USER_HZ).
const userHZ = 100

// Stats is a process's CPU time and memory at one moment.
type Stats struct {
	// CPU is the user plus system time of all its threads so far, in steps
	// of 10 ms.
	CPU time.Duration
	// RSS is its resident set size now (VmRSS), in bytes.
	RSS int64
	// PeakRSS is the highest resident set size it has had (VmHWM), in bytes.
	PeakRSS int64
}

// ReadStats reads the stats of process pid from /proc.
func ReadStats(pid int) (Stats, error) {
	var s Stats
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, fmt.Errorf("read CPU time of process %d: %w (has it exited?)", pid, err)
	}
	if s.CPU, err = parseCPU(stat); err != nil {
		return s, fmt.Errorf("process %d: %w", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, fmt.Errorf("read memory of process %d: %w (has it exited?)", pid, err)
	}
	if s.RSS, err = statusKiB(status, "VmRSS:"); err != nil {
		return s, fmt.Errorf("process %d: %w", pid, err)
	}
	if s.PeakRSS, err = statusKiB(status, "VmHWM:"); err != nil {
		return s, fmt.Errorf("process %d: %w", pid, err)
	}
	return s, nil
}

// parseCPU returns utime+stime from the contents of /proc/<pid>/stat. The
// command name in field 2 may hold spaces and parentheses, so fields are
// counted from the last ')'.
func parseCPU(stat []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc stat has no command name: %.100q", stat)
	}
	fields := bytes.Fields(stat[end+1:])
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	const utime, stime = 14 - 3, 15 - 3
	if len(fields) <= stime {
		return 0, fmt.Errorf("/proc stat has %d fields after the command name, want more than %d", len(fields), stime)
	}
	var ticks int64
	for _, f := range [...][]byte{fields[utime], fields[stime]} {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat CPU time %q is not a number", f)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}

// statusKiB returns the value of the line starting with key in the contents
// of /proc/<pid>/status (given there in kB), in bytes.
func statusKiB(status []byte, key string) (int64, error) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte(key))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, fmt.Errorf("/proc status line %q is not \"%s <n> kB\"", bytes.TrimSpace(line), key)
		}
		n, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc status line %q holds no number", bytes.TrimSpace(line))
		}
		return n << 10, nil
	}
	return 0, fmt.Errorf("/proc status has no %s line", key)
}

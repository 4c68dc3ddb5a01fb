//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// CommandCPU returns the CPU time (user plus system, all threads) of every
// process whose command name (the comm in /proc/<pid>/stat) is comm, summed,
// and how many there were. A process that exits between listing and reading
// is left out, as is one that began and ended between two readings: the
// figure is for long-lived servers (redis-server, the postgres backends of
// a connection pool).
func CommandCPU(comm string) (time.Duration, int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, 0, err
	}
	var (
		total time.Duration
		n     int
	)
	for _, path := range stats {
		stat, err := os.ReadFile(path)
		if err != nil {
			continue // exited since the listing
		}
		if commandName(stat) != comm {
			continue
		}
		cpu, err := parseCPU(stat)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		total += cpu
		n++
	}
	return total, n, nil
}

// commandName returns the comm field of the contents of /proc/<pid>/stat:
// what is between the first '(' and the last ')'.
func commandName(stat []byte) string {
	start, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if start < 0 || end < start {
		return ""
	}
	return string(stat[start+1 : end])
}

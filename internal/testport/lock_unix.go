//go:build unix

package testport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// locks holds the files whose locks reserve this process's ports; the
// kernel releases them when the process ends, however it ends.
var locks []*os.File

// lockDir is the folder, shared by every test process of the machine,
// that holds one lock file per port.
func lockDir() string { return filepath.Join(os.TempDir(), "weft-testport") }

// lockPort takes an exclusive lock on port's file in lockDir and reports
// whether it got it; it fails when it cannot use the folder at all. A
// flock belongs to the open file, so a second lockPort of one port in
// the same process is refused too.
func lockPort(port int) (bool, error) {
	dir := lockDir()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return false, fmt.Errorf("testport: making the folder of port locks: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return false, fmt.Errorf("testport: %w; every test process must be able to write to %s (remove it or make it writable)", err, dir)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, nil
		}
		return false, fmt.Errorf("testport: locking port %d: %w", port, err)
	}
	locks = append(locks, f)
	return true, nil
}

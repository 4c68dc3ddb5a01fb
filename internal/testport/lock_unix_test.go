//go:build unix

package testport

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// lockPortEnv names the port a child test process tries to lock.
const lockPortEnv = "TESTPORT_TRY_LOCK"

func TestAnotherProcessCannotLockAPortThisOneHolds(t *testing.T) {
	port, err := Free()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildLocksPort$", "-test.v")
	cmd.Env = append(os.Environ(), lockPortEnv+"="+port)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "port "+port+" is locked by another process") {
		t.Fatalf("another process was not refused port %s, which this one holds:\n%s", port, out)
	}
}

// TestChildLocksPort is the child process of the test above: it fails
// when it cannot lock the port it is given. Run on its own, it has
// nothing to do.
func TestChildLocksPort(t *testing.T) {
	port, err := strconv.Atoi(os.Getenv(lockPortEnv))
	if err != nil {
		return
	}
	locked, err := lockPort(port)
	if err != nil {
		t.Fatal(err)
	}
	if !locked {
		t.Fatalf("port %d is locked by another process", port)
	}
}

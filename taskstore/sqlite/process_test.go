package sqlite_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// The test binary runs itself a second time as the other process; these
// environment variables tell the second run what to do.
const (
	childDBEnv  = "WEFT_SQLITE_TEST_CHILD_DB"
	childIDsEnv = "WEFT_SQLITE_TEST_CHILD_IDS"
)

// processQuota is the per-principal quota both processes create under.
const processQuota = 5

func TestTwoProcessesShareOneFile(t *testing.T) {
	ctx := context.Background()
	path := dbPath(t)
	s := open(t, path)
	var ids []string
	for i := range 300 {
		rec := &tasks.Record{ID: fmt.Sprint("race-", i), Principal: "alice", Status: tasks.StatusWorking}
		if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
			t.Fatalf("Create: %v", err)
		}
		ids = append(ids, rec.ID)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childDBEnv+"="+path, childIDsEnv+"="+strings.Join(ids, ","))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the second process: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The reader stops when the test ends (cleanups run last registered
	// first: before the kill), though the child says more than the test
	// reads; otherwise it waited on its send for good, one goroutine a run.
	lines, ended := make(chan string), make(chan struct{})
	t.Cleanup(func() { close(ended) })
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ended:
				return
			}
		}
	}()
	expect := func(prefix string) string {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("the second process ended before saying %q", prefix)
				}
				if rest, found := strings.CutPrefix(line, prefix); found {
					return rest
				}
			case <-timeout:
				t.Fatalf("the second process did not say %q within a minute", prefix)
			}
		}
	}
	expect("ready")
	if _, err := fmt.Fprintln(stdin, "go"); err != nil {
		t.Fatalf("starting the race: %v", err)
	}
	mine, created := race(ctx, t, s, ids, tasks.StatusCompleted)
	theirs := strings.Fields(expect("won:"))
	theirCreated, err := strconv.Atoi(strings.TrimSpace(expect("created:")))
	if err != nil {
		t.Fatalf("the second process reported an unreadable count: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the second process failed: %v", err)
	}

	winner := map[string]tasks.Status{}
	for _, id := range mine {
		winner[id] = tasks.StatusCompleted
	}
	for _, id := range theirs {
		if _, twice := winner[id]; twice {
			t.Fatalf("both processes finished task %s", id)
		}
		winner[id] = tasks.StatusCancelled
	}
	for _, id := range ids {
		got, err := s.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%s): %v", id, err)
		}
		if want, ok := winner[id]; !ok || got.Status != want {
			t.Fatalf("task %s is %s, but the winning write was %q", id, got.Status, want)
		}
	}
	if created+theirCreated != processQuota {
		t.Fatalf("the processes created %d and %d tasks under a quota of %d", created, theirCreated, processQuota)
	}
	t.Logf("this process won %d races, the other %d; creates %d and %d", len(mine), len(theirs), created, theirCreated)
}

// TestSecondProcess is the other process of TestTwoProcessesShareOneFile.
func TestSecondProcess(t *testing.T) {
	path := os.Getenv(childDBEnv)
	if path == "" {
		t.Skip("this is the second process of TestTwoProcessesShareOneFile, which starts it")
	}
	ctx := context.Background()
	s := open(t, path)
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatalf("waiting for the start: %v", err)
	}
	// From the other end: the processes meet in the middle and fight there.
	ids := strings.Split(os.Getenv(childIDsEnv), ",")
	slices.Reverse(ids)
	won, created := race(ctx, t, s, ids, tasks.StatusCancelled)
	fmt.Println("won:", strings.Join(won, " "))
	fmt.Println("created:", created)
}

// race finishes each task with status, retrying on conflicts, and returns
// the IDs it finished first. Then it creates tasks for carol under the
// quota until refused, and returns how many it created.
func race(ctx context.Context, t *testing.T, s tasks.Store, ids []string, status tasks.Status) (won []string, created int) {
	for _, id := range ids {
		for {
			cur, err := s.Get(ctx, id)
			if err != nil {
				t.Fatalf("Get(%s): %v", id, err)
			}
			cur.Status = status
			if status == tasks.StatusCompleted {
				cur.Result = json.RawMessage(`{}`)
			}
			err = s.Update(ctx, cur)
			if errors.Is(err, tasks.ErrConflict) {
				continue
			}
			if err == nil {
				won = append(won, id)
			} else if !errors.Is(err, tasks.ErrTerminal) {
				t.Fatalf("Update(%s): %v", id, err)
			}
			break
		}
	}
	for i := range 2 * processQuota {
		rec := &tasks.Record{ID: fmt.Sprint(status, "-", i), Principal: "carol", Status: tasks.StatusWorking}
		err := s.Create(ctx, rec, tasks.Quota{PerPrincipal: processQuota})
		switch {
		case err == nil:
			created++
		case !errors.Is(err, tasks.ErrLimit):
			t.Fatalf("Create under the quota: %v", err)
		}
	}
	return won, created
}

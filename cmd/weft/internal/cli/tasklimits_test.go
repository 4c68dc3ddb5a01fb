package cli

import (
	"context"
	"strings"
	"testing"
)

// A task limit of 0, or below -1, is a usage error naming the flag, as the
// HTTP endpoint's limits are. (0 silently became the default limit, and
// -2 lifted the limit altogether.) The context is cancelled before the
// run, so a server that starts stops at once.
func TestTaskLimitFlagsAreChecked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, cmd := range [][]string{
		{"serve", "--http", "127.0.0.1:0"},
		{"proxy", "--http", "127.0.0.1:0"},
	} {
		for _, flag := range [][]string{
			{"--max-tasks", "0"},
			{"--max-tasks", "-2"},
			{"--max-tasks-per-client", "0"},
			{"--max-tasks-per-client", "-5"},
			{"--max-ttl", "0s"},
		} {
			args := append(append(append([]string{}, cmd...), "--store", "memory"), flag...)
			if cmd[0] == "proxy" {
				args = append(args, "--", "weft-no-such-server")
			}
			var stdout, stderr strings.Builder
			root := newRoot(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
			root.SetArgs(args)
			err := root.ExecuteContext(ctx)
			if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), flag[0]) {
				t.Errorf("weft %s: %v (exit %d), want a usage error naming %s", strings.Join(args, " "), err, exitCode(err), flag[0])
			}
		}
	}
}

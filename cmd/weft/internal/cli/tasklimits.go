package cli

import (
	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/tasks"
)

// addTaskLimitFlags declares the flags that bound the tasks clients may
// create, with the engine's defaults.
func addTaskLimitFlags(cmd *cobra.Command, s *store.Settings) {
	cmd.Flags().IntVar(&s.MaxTasksPerPrincipal, "max-tasks-per-client", tasks.DefaultMaxTasksPerPrincipal,
		"the most unfinished tasks one client (one authenticated subject, or one session without --auth-issuer) may have, across every server on the store; a task call past it is refused with a JSON-RPC error saying so; -1 for no limit")
	cmd.Flags().IntVar(&s.MaxTasks, "max-tasks", tasks.DefaultMaxTasks,
		"the most unfinished tasks of all clients together, across every server on the store; a task call past it is refused with a JSON-RPC error saying so; -1 for no limit")
	cmd.Flags().DurationVar(&s.MaxTTL, "max-ttl", tasks.DefaultMaxTTL,
		"the longest a task is kept after it is created: a client asking for a longer ttl gets this one; -1s for no maximum")
}

// checkTaskLimits rejects task limits the flags cannot mean: 0 (which the
// engine would read as its default) and counts below -1, the one value
// that lifts a limit.
func checkTaskLimits(s store.Settings) error {
	for _, l := range []struct {
		flag string
		n    int
	}{{"--max-tasks-per-client", s.MaxTasksPerPrincipal}, {"--max-tasks", s.MaxTasks}} {
		if l.n == 0 || l.n < -1 {
			return usageError("%s %d: give at least 1, or -1 for no limit", l.flag, l.n)
		}
	}
	if s.MaxTTL == 0 {
		return usageError("--max-ttl 0: give a duration such as 24h, or -1s for no maximum")
	}
	return nil
}

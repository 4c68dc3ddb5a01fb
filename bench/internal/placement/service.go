package placement

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/proc"
)

// Service reads what the server behind a Placement has spent.
type Service struct {
	comm  string // the command name of its processes
	place *Placement
}

// Service returns the reader of the service behind p, or nil for a store
// inside the benchmark server's own process (memory, SQLite).
func (p *Placement) Service() *Service {
	switch p.Kind {
	case "redis":
		return &Service{comm: "redis-server", place: p}
	case "postgres":
		return &Service{comm: "postgres", place: p}
	}
	return nil
}

// Spent reads the service's CPU time so far from /proc, summed over every
// process of its command name (for PostgreSQL, the postmaster and every
// backend and helper: the machine's whole PostgreSQL, so whatever else uses
// it counts too), and, for Redis, the commands it has processed (INFO
// total_commands_processed; not read for PostgreSQL). Round trips are the
// client's to count, so they are not read here. It implements
// loadgen.Store.
func (s *Service) Spent(ctx context.Context) (loadgen.Spending, error) {
	cpu, n, err := proc.CommandCPU(s.comm)
	if err != nil {
		return loadgen.Spending{}, err
	}
	if n == 0 {
		return loadgen.Spending{}, fmt.Errorf("no %s process is visible in /proc; the store's CPU cannot be read (is it in another container?)", s.comm)
	}
	out := loadgen.Spending{CPU: cpu, Commands: -1, RoundTrips: -1, BackgroundRoundTrips: -1, Requests: -1}
	if s.place.Kind == "redis" {
		out.Commands, err = s.redisCommands(ctx)
	}
	return out, err
}

// redisCommands reads total_commands_processed from INFO stats.
func (s *Service) redisCommands(ctx context.Context) (int64, error) {
	client, err := s.place.redisClient()
	if err != nil {
		return 0, err
	}
	defer client.Close()
	info, err := client.Info(ctx, "stats").Result()
	if err != nil {
		return 0, fmt.Errorf("read the Redis INFO stats: %w", err)
	}
	return parseCommandCount(info)
}

// parseCommandCount finds total_commands_processed in INFO output.
func parseCommandCount(info string) (int64, error) {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("INFO total_commands_processed %q is not a number", v)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("the Redis INFO stats hold no total_commands_processed")
}

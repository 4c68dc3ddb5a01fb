package example

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// MaxSleep bounds the seconds sleep accepts.
const MaxSleep = 3600

// SleepIn are the arguments of sleep.
type SleepIn struct {
	Seconds int `json:"seconds" jsonschema:"how many seconds to sleep (0 to 3600)"`
}

// addSleep registers sleep, which waits the given seconds, reporting
// progress after each one (and logging it, at level info, to a client that
// set a log level), and stops as soon as it is cancelled, saying
// so to logger. It is safe to repeat.
func addSleep(s *server.Server, logger *slog.Logger) {
	server.AddTool(s, &mcp.Tool{
		Name:        "sleep",
		Title:       "Sleep",
		Description: "Sleeps for the given number of seconds, reporting progress every second. Run it as a task to poll, watch or cancel it.",
	}, func(ctx context.Context, req *server.Request, in SleepIn) (string, error) {
		return sleep(ctx, req, in, "sleep", logger)
	}, asTask())
}

// addOnce registers once, which sleeps as sleep does but stands for work
// that must not be done twice: its task is not run again when the server
// running it is lost, but fails.
func addOnce(s *server.Server, logger *slog.Logger) {
	server.AddTool(s, &mcp.Tool{
		Name:  "once",
		Title: "Once",
		Description: "Sleeps as sleep does, but is not safe to repeat (it stands for work with side effects): " +
			"if the server running its task is lost, the task fails instead of running again.",
	}, func(ctx context.Context, req *server.Request, in SleepIn) (string, error) {
		return sleep(ctx, req, in, "once", logger)
	}, asOnceTask())
}

// sleep sleeps, reporting and logging progress every second, until in.Seconds have
// passed or ctx ends; then it tells logger that the tool stopped early.
func sleep(ctx context.Context, req *server.Request, in SleepIn, tool string, logger *slog.Logger) (string, error) {
	if in.Seconds < 0 || in.Seconds > MaxSleep {
		return "", fmt.Errorf("seconds must be between 0 and %d, not %d", MaxSleep, in.Seconds)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for done := 1; done <= in.Seconds; done++ {
		select {
		case <-ctx.Done():
			logger.Info(tool+" stopped early", "slept", done-1, "of", in.Seconds, "cause", context.Cause(ctx))
			return "", fmt.Errorf("%s stopped after %d of %d seconds: %w", tool, done-1, in.Seconds, context.Cause(ctx))
		case <-tick.C:
		}
		slept := fmt.Sprintf("slept %d of %d seconds", done, in.Seconds)
		if err := req.Progress(ctx, float64(done), float64(in.Seconds), slept); err != nil {
			return "", err
		}
		if err := req.Log(ctx, mcp.LevelInfo, tool, slept); err != nil {
			return "", err
		}
	}
	return "slept " + seconds(in.Seconds), nil
}

// seconds says n seconds in words.
func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", n)
}

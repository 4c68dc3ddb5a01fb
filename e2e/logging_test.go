package e2e

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// logRecorder collects the log messages a client receives.
type logRecorder struct {
	mu     sync.Mutex
	levels []mcp.LoggingLevel
}

func (r *logRecorder) onLog(_ context.Context, p *mcp.LoggingMessageNotificationParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.levels = append(r.levels, p.Level)
}

// take returns and forgets the levels received so far.
func (r *logRecorder) take() []mcp.LoggingLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.levels
	r.levels = nil
	return out
}

// levelsFrom returns the levels at least as severe as min, least severe first.
func levelsFrom(min mcp.LoggingLevel) []mcp.LoggingLevel {
	all := []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
		mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}
	return all[slices.Index(all, min):]
}

func TestLoggingLevels(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		rec := &logRecorder{}
		s, _ := e.connect(t, &client.Options{OnLog: rec.onLog})
		// Log messages precede the response, so they have all arrived when
		// the call returns.
		callTool(t, s, "log", `{}`)
		if got := rec.take(); len(got) != 0 {
			t.Errorf("before any level was set the client got %v", got)
		}
		if err := s.SetLoggingLevel(ctxFor(t), mcp.LevelWarning); err != nil {
			t.Fatal(err)
		}
		callTool(t, s, "log", `{}`)
		if got, want := rec.take(), levelsFrom(mcp.LevelWarning); !slices.Equal(got, want) {
			t.Errorf("at level warning the client got %v, want %v", got, want)
		}
		if !s.IsModern() {
			return
		}
		// A modern request's own level overrides the session's.
		callTool(t, s, "log", `{}`, client.WithLogLevel(mcp.LevelCritical))
		if got, want := rec.take(), levelsFrom(mcp.LevelCritical); !slices.Equal(got, want) {
			t.Errorf("with a per-request level critical the client got %v, want %v", got, want)
		}
		callTool(t, s, "log", `{}`, client.WithLogLevel(""))
		if got := rec.take(); len(got) != 0 {
			t.Errorf("a request without a level got %v", got)
		}
	})
}

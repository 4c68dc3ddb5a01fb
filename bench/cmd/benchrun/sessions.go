package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/proc"
)

// sessionGOGC makes the server collect garbage after every 1% of heap
// growth while idle sessions are measured, so its heap holds little beyond
// live data and the RSS difference shows what the sessions keep rather than
// where the collector's heap goal happened to be.
const sessionGOGC = "GOGC=1"

// sessionResult is one measurement of memory held by idle legacy sessions.
type sessionResult struct {
	// Sessions is how many idle sessions were opened.
	Sessions int
	// Before is the server's RSS after the control traffic, in bytes.
	Before int64
	// After is its RSS with the idle sessions open, in bytes.
	After int64
	// PerSession is (After - Before) / Sessions, in bytes.
	PerSession float64
}

// measureSessions measures the resident memory a server holds per idle
// legacy HTTP session. On a fresh server it first sends as many echo calls
// on one session as opening the sessions will take requests (2 each), so
// the HTTP machinery and the heap are warm, and reads RSS; then it opens n
// sessions (initialize and notifications/initialized, one connection, one at
// a time) and reads RSS again. Every session must have been issued an id,
// and every one must still answer an echo call after the second reading.
func measureSessions(ctx context.Context, impl implementation, bin binary, n int) (sessionResult, error) {
	server, url, err := proc.StartHTTP(ctx, proc.Command{Path: bin.Path, Args: impl.SessionArgs, Env: []string{sessionGOGC}})
	if err != nil {
		return sessionResult{}, err
	}
	client := mcpwire.NewHTTPClient(1)
	r, err := openIdleSessions(ctx, server, client, url, n)
	client.CloseIdleConnections()
	if err != nil {
		return sessionResult{}, withServer(err, server)
	}
	if err := server.Stop(); err != nil {
		return sessionResult{}, err
	}
	return r, nil
}

// openIdleSessions does the measuring of measureSessions on a started server.
func openIdleSessions(ctx context.Context, server *proc.Process, client *http.Client, url string, n int) (sessionResult, error) {
	control, err := mcpwire.DialHTTP(ctx, client, url)
	if err != nil {
		return sessionResult{}, err
	}
	for i := range 2 * n {
		if err := control.Echo(ctx, "control-"+strconv.Itoa(i)); err != nil {
			return sessionResult{}, err
		}
	}
	before, err := server.Stats()
	if err != nil {
		return sessionResult{}, err
	}
	sessions := make([]*mcpwire.HTTPSession, n)
	for i := range sessions {
		if sessions[i], err = mcpwire.DialHTTP(ctx, client, url); err != nil {
			return sessionResult{}, fmt.Errorf("open idle session %d of %d: %w", i+1, n, err)
		}
		if sessions[i].ID() == "" {
			return sessionResult{}, fmt.Errorf("the server issued no Mcp-Session-Id, so it keeps no legacy sessions to measure; give it session-keeping SessionArgs")
		}
	}
	after, err := server.Stats()
	if err != nil {
		return sessionResult{}, err
	}
	for i, s := range sessions {
		if err := s.Echo(ctx, "idle-"+strconv.Itoa(i)); err != nil {
			return sessionResult{}, fmt.Errorf("idle session %d of %d no longer works: %w", i+1, n, err)
		}
	}
	return sessionResult{
		Sessions:   n,
		Before:     before.RSS,
		After:      after.RSS,
		PerSession: float64(after.RSS-before.RSS) / float64(n),
	}, nil
}

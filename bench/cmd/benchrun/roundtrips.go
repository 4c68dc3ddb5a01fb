package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/placement"
	"github.com/weftmcp/weft/bench/internal/proc"
)

// roundTripWait bounds how long a server may take to report its round
// trips once asked.
const roundTripWait = 5 * time.Second

// rowStore is what a row reads of its store at both ends of the window:
// the store server's spending (service) and the round trips the weft
// server made to it (trips); either may be nil.
type rowStore struct {
	service *placement.Service
	trips   *roundTripCounter
}

// started tells the round-trip counter which process to ask.
func (s *rowStore) started(p *proc.Process) {
	if s.trips != nil {
		s.trips.server = p
	}
}

// Spent implements loadgen.Store.
func (s *rowStore) Spent(ctx context.Context) (loadgen.Spending, error) {
	out := loadgen.Spending{Commands: -1, RoundTrips: -1, BackgroundRoundTrips: -1, Requests: -1}
	var err error
	if s.service != nil {
		if out, err = s.service.Spent(ctx); err != nil {
			return out, err
		}
	}
	if s.trips != nil {
		out.RoundTrips, out.BackgroundRoundTrips, out.Requests, err = s.trips.read(ctx)
	}
	return out, err
}

// roundTripCounter reads the round trips a weft server has made to its
// store: it sends the server SIGUSR1, and the server appends its counts to
// file as a line: all its round trips, those made in the background, and
// the HTTP requests it had begun (servers/weft -store-stats).
type roundTripCounter struct {
	file   string
	server *proc.Process // set once the server has started
	lines  int           // lines read so far
}

// read asks the server for its counts and waits for the line it appends.
func (c *roundTripCounter) read(ctx context.Context) (all, background, requests int64, err error) {
	if c.server == nil {
		return 0, 0, 0, errors.New("the server's round trips were asked for before it started")
	}
	if err := syscall.Kill(c.server.PID(), syscall.SIGUSR1); err != nil {
		return 0, 0, 0, fmt.Errorf("ask the server for its round trips: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, roundTripWait)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	exited, how := c.server.Exited()
	for {
		data, err := os.ReadFile(c.file)
		if err != nil {
			return 0, 0, 0, err
		}
		if lines := bytes.Split(data, []byte("\n")); len(lines) > c.lines+1 { // the last is what follows the final newline
			line := string(lines[c.lines])
			c.lines++
			return parseRoundTrips(line)
		}
		select {
		case <-ctx.Done():
			return 0, 0, 0, fmt.Errorf("the server did not report its round trips within %s of SIGUSR1: %w", roundTripWait, context.Cause(ctx))
		case <-exited:
			return 0, 0, 0, fmt.Errorf("the server exited (%v) when asked for its round trips with SIGUSR1, before reporting them; "+
				"was it built with this harness, and asked before it had set up?", how())
		case <-tick.C:
		}
	}
}

// parseRoundTrips reads a line of the -store-stats file: all round trips,
// the background ones and the requests begun, three decimals.
func parseRoundTrips(line string) (all, background, requests int64, err error) {
	fields := strings.Fields(line)
	var n [3]int64
	if len(fields) == len(n) {
		for i, f := range fields {
			if n[i], err = strconv.ParseInt(f, 10, 64); err != nil || n[i] < 0 {
				break
			}
		}
	}
	if len(fields) != len(n) || err != nil || n[0] < 0 || n[1] < 0 || n[2] < 0 || n[1] > n[0] {
		return 0, 0, 0, fmt.Errorf("the server reported round trips %q, not three counts (all, the background ones, the requests begun); "+
			"rebuild it with this harness", line)
	}
	return n[0], n[1], n[2], nil
}

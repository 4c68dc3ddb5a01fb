// Package loadgen drives one MCP session with echo calls, closed loop at a
// fixed number of calls in flight, and measures throughput, latency and the
// server's CPU time and memory over a timed window after a warm-up.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/bench/internal/proc"
)

// stallGrace is how long past its planned end a run may take (waiting for
// the last calls) before it is declared stalled.
const stallGrace = 30 * time.Second

// ErrStalled is the cause given to calls still waiting when a run stalls:
// the server stopped answering.
var ErrStalled = errors.New("the server stopped answering within the run's time limit")

// Options sets the shape of a run.
type Options struct {
	// InFlight is how many calls are outstanding at every moment (at least 1):
	// that many workers each send a call as soon as their last one is answered.
	InFlight int
	// Warmup is how long calls run before measuring starts, counted from
	// the first answer: a server still starting is not yet warming up, and
	// is not asked for its spending (a weft server reports it on SIGUSR1,
	// which would end a process that has not yet set up its handler).
	Warmup time.Duration
	// Window is how long the measurement lasts.
	Window time.Duration
	// Store, when set, is the service the server keeps its state in
	// (Redis, PostgreSQL), whose spending over the window is reported too.
	Store Store
}

// Store reads what the store the server keeps its state in has spent so
// far; it is read at the same two moments as the server.
type Store interface {
	Spent(ctx context.Context) (Spending, error)
}

// Spending is what a store has spent so far.
type Spending struct {
	// CPU is the CPU time of the store's server processes.
	CPU time.Duration
	// Commands is how many commands the store's server has processed;
	// negative when not read.
	Commands int64
	// RoundTrips is how many round trips the server under load has made
	// to the store; negative when not read.
	RoundTrips int64
	// BackgroundRoundTrips is how many of RoundTrips the server made in
	// the background, outside any request (a periodic sweep); negative
	// when not told apart.
	BackgroundRoundTrips int64
	// Requests is how many requests the server had begun serving when
	// RoundTrips was read, by its own count; negative when not read.
	Requests int64
}

// Session is an initialized MCP session whose Echo call checks its answer;
// it must be safe for concurrent use.
type Session interface {
	Echo(ctx context.Context, text string) error
}

// Server reads the CPU time and memory of the server process under load.
type Server interface {
	Stats() (proc.Stats, error)
}

// Result is what one run measured.
type Result struct {
	// Sent is how many calls were sent over the whole run, warm-up included.
	Sent int64
	// Checked is how many answers arrived and were verified correct; a run
	// that returns without error has Checked == Sent.
	Checked int64
	// Requests is how many calls were answered inside the window.
	Requests int64
	// Window is the measured window's actual length.
	Window time.Duration
	// PerSecond is Requests divided by Window.
	PerSecond float64
	// P50 and P99 are latency percentiles (nearest rank) of the calls
	// answered inside the window, each timed from send to verified answer.
	P50, P99 time.Duration
	// CPUPerRequest is the server's CPU time over the window divided by Requests.
	CPUPerRequest time.Duration
	// PeakRSS is the server's peak resident set size at the window's end, in bytes.
	PeakRSS int64
	// StoreCPUPerRequest is Options.Store's CPU time over the window divided
	// by Requests; zero without a Store.
	StoreCPUPerRequest time.Duration `json:",omitzero"`
	// StoreCommandsPerRequest is how many commands Options.Store processed
	// over the window per request; zero without a Store or a count.
	StoreCommandsPerRequest float64 `json:",omitzero"`
	// StoreRoundTripsPerRequest is how many round trips the server made to
	// Options.Store over the window per request; zero without a Store or a
	// count.
	StoreRoundTripsPerRequest float64 `json:",omitzero"`
	// StoreRequestRoundTripsPerRequest is the round trips the server made
	// in serving requests (RoundTrips less BackgroundRoundTrips), divided
	// by the requests it began, both as the server counted them between
	// the same two moments: exact, where the calls answered in the window
	// and the round trips counted at the server's two readings, a few
	// milliseconds apart from the window's ends, are not.
	// StoreBackgroundRoundTripsPerSecond is the background round trips over
	// the window per second. Both are zero when the store's Spending does
	// not tell them apart or count requests.
	StoreRequestRoundTripsPerRequest   float64 `json:",omitzero"`
	StoreBackgroundRoundTripsPerSecond float64 `json:",omitzero"`
}

// call is one answered call's timing.
type call struct {
	start, end time.Time
}

// Run loads session (served by server) as opt says and reports what it
// measured. It fails on the first call whose answer is missing or wrong.
func Run(ctx context.Context, session Session, server Server, opt Options) (Result, error) {
	if opt.InFlight < 1 || opt.Warmup < 0 || opt.Window <= 0 {
		return Result{}, fmt.Errorf("a run needs at least 1 call in flight and a positive window; got %d in flight, warm-up %s, window %s", opt.InFlight, opt.Warmup, opt.Window)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opt.Warmup+opt.Window+stallGrace, ErrStalled)
	defer cancel()

	var (
		stopping      atomic.Bool
		sent, checked atomic.Int64
		workers       sync.WaitGroup
		failures      = make(chan error, opt.InFlight)
		calls         = make([][]call, opt.InFlight)
		answered      = make(chan struct{}) // closed at the first answer
		firstAnswer   sync.Once
	)
	for w := range opt.InFlight {
		workers.Go(func() {
			prefix := "w" + strconv.Itoa(w) + "-"
			local := make([]call, 0, 1024)
			for seq := 0; !stopping.Load(); seq++ {
				text := prefix + strconv.Itoa(seq)
				start := time.Now()
				sent.Add(1)
				if err := session.Echo(ctx, text); err != nil {
					failures <- err
					cancel()
					break
				}
				local = append(local, call{start: start, end: time.Now()})
				checked.Add(1)
				firstAnswer.Do(func() { close(answered) })
			}
			calls[w] = local
		})
	}

	before, windowStart, after, windowEnd, phaseErr := measureWindow(ctx, answered, server, opt)
	stopping.Store(true)
	workers.Wait()
	close(failures)
	if err := <-failures; err != nil {
		return Result{}, err
	}
	if phaseErr != nil {
		return Result{}, phaseErr
	}

	var latencies []time.Duration
	for _, local := range calls {
		for _, c := range local {
			if !c.end.Before(windowStart) && !c.end.After(windowEnd) {
				latencies = append(latencies, c.end.Sub(c.start))
			}
		}
	}
	if len(latencies) == 0 {
		return Result{}, fmt.Errorf("no call was answered within the %s window; lengthen the window", opt.Window)
	}
	slices.Sort(latencies)
	window := windowEnd.Sub(windowStart)
	n := int64(len(latencies))
	r := Result{
		Sent:          sent.Load(),
		Checked:       checked.Load(),
		Requests:      n,
		Window:        window,
		PerSecond:     float64(n) / window.Seconds(),
		P50:           percentile(latencies, 50),
		P99:           percentile(latencies, 99),
		CPUPerRequest: (after.CPU - before.CPU) / time.Duration(n),
		PeakRSS:       after.PeakRSS,
	}
	if opt.Store != nil {
		r.StoreCPUPerRequest = (after.store.CPU - before.store.CPU) / time.Duration(n)
		r.StoreCommandsPerRequest = perRequest(before.store.Commands, after.store.Commands, n)
		r.StoreRoundTripsPerRequest = perRequest(before.store.RoundTrips, after.store.RoundTrips, n)
		if b, a := before.store, after.store; b.RoundTrips >= 0 && b.BackgroundRoundTrips >= 0 && b.Requests >= 0 && a.Requests > b.Requests {
			background := a.BackgroundRoundTrips - b.BackgroundRoundTrips
			r.StoreRequestRoundTripsPerRequest = float64(a.RoundTrips-b.RoundTrips-background) / float64(a.Requests-b.Requests)
			r.StoreBackgroundRoundTripsPerSecond = float64(background) / window.Seconds()
		}
	}
	return r, nil
}

// perRequest is a count's growth from before to after divided by n, or 0
// when it was not read.
func perRequest(before, after, n int64) float64 {
	if before < 0 || after < 0 {
		return 0
	}
	return float64(after-before) / float64(n)
}

// reading is what is read at each end of the window.
type reading struct {
	proc.Stats
	store Spending
}

// read reads the server's stats and, with a Store, what it has spent.
func read(ctx context.Context, server Server, store Store) (reading, error) {
	var (
		r   reading
		err error
	)
	if r.Stats, err = server.Stats(); err != nil || store == nil {
		return r, err
	}
	r.store, err = store.Spent(ctx)
	return r, err
}

// measureWindow waits for the first answer and then out the warm-up, then
// reads the server (and the store) at the start and end of the window.
func measureWindow(ctx context.Context, answered <-chan struct{}, server Server, opt Options) (before reading, start time.Time, after reading, end time.Time, err error) {
	select {
	case <-answered:
	case <-ctx.Done():
		err = fmt.Errorf("no call was answered: %w", context.Cause(ctx))
		return
	}
	if err = wait(ctx, opt.Warmup); err != nil {
		return
	}
	if before, err = read(ctx, server, opt.Store); err != nil {
		return
	}
	start = time.Now()
	if err = wait(ctx, opt.Window); err != nil {
		return
	}
	end = time.Now()
	after, err = read(ctx, server, opt.Store)
	return
}

// wait returns after d, or early with an error if ctx ends first.
func wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the run ended early: %w", context.Cause(ctx))
	}
}

// percentile returns the p-th percentile (nearest rank) of sorted, which is
// not empty.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (len(sorted)*p + 99) / 100 // ceil(len*p/100)
	return sorted[max(rank, 1)-1]
}

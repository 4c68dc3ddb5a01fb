package loadgen_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/proc"
)

// smoke is a short run: enough calls to exercise every phase, quick under -race.
var smoke = loadgen.Options{InFlight: 4, Warmup: 100 * time.Millisecond, Window: 300 * time.Millisecond}

// buildBare builds the bare server into a temporary directory.
func buildBare(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bare")
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/weftmcp/weft/bench/servers/bare").CombinedOutput()
	if err != nil {
		t.Fatalf("go build of the bare server failed: %v\n%s", err, out)
	}
	return bin
}

// checkResult asserts that every call sent was answered and verified, and
// that the figures are plausible.
func checkResult(t *testing.T, r loadgen.Result) {
	t.Helper()
	t.Logf("%+v", r)
	if r.Sent == 0 || r.Checked != r.Sent {
		t.Errorf("sent %d calls but checked %d answers; every answer must be checked", r.Sent, r.Checked)
	}
	if r.Requests == 0 || r.Requests > r.Checked {
		t.Errorf("window counted %d requests out of %d checked", r.Requests, r.Checked)
	}
	if want := float64(r.Requests) / r.Window.Seconds(); r.PerSecond != want {
		t.Errorf("PerSecond = %v, want Requests/Window = %v", r.PerSecond, want)
	}
	if r.P50 <= 0 || r.P99 < r.P50 {
		t.Errorf("latency percentiles p50 %s, p99 %s are not ordered and positive", r.P50, r.P99)
	}
	if r.CPUPerRequest < 0 {
		t.Errorf("server CPU per request %s is negative", r.CPUPerRequest)
	}
	if r.PeakRSS < 1<<20 {
		t.Errorf("server peak RSS %d bytes is implausibly small for a Go process", r.PeakRSS)
	}
}

func TestRunBareOverStdio(t *testing.T) {
	bin := buildBare(t)
	server, toServer, fromServer, err := proc.StartStdio(proc.Command{Path: bin})
	if err != nil {
		t.Fatal(err)
	}
	session, err := mcpwire.NewStdio(t.Context(), fromServer, toServer)
	if err != nil {
		server.Stop()
		t.Fatalf("handshake with the bare server over stdio: %v", err)
	}
	r, err := loadgen.Run(t.Context(), session, server, smoke)
	if stopErr := server.Stop(); stopErr != nil {
		t.Errorf("stopping the bare server: %v", stopErr)
	}
	if err != nil {
		t.Fatalf("run over stdio: %v; server stderr: %s", err, server.Stderr())
	}
	checkResult(t, r)
}

func TestRunBareOverHTTP(t *testing.T) {
	bin := buildBare(t)
	server, url, err := proc.StartHTTP(t.Context(), proc.Command{Path: bin})
	if err != nil {
		t.Fatal(err)
	}
	client := mcpwire.NewHTTPClient(smoke.InFlight)
	session, err := mcpwire.DialHTTP(t.Context(), client, url)
	if err != nil {
		server.Stop()
		t.Fatalf("handshake with the bare server over HTTP: %v", err)
	}
	if session.ID() == "" {
		t.Error("the bare server issued no Mcp-Session-Id; it keeps legacy sessions")
	}
	r, err := loadgen.Run(t.Context(), session, server, smoke)
	client.CloseIdleConnections()
	if stopErr := server.Stop(); stopErr != nil {
		t.Errorf("stopping the bare server: %v", stopErr)
	}
	if err != nil {
		t.Fatalf("run over HTTP: %v; server stderr: %s", err, server.Stderr())
	}
	checkResult(t, r)
}

// failingSession answers correctly until its limit, then fails every call.
type failingSession struct {
	calls, limit atomic.Int64
}

var errWrongAnswer = errors.New("wrong answer")

func (s *failingSession) Echo(context.Context, string) error {
	if s.calls.Add(1) > s.limit.Load() {
		return errWrongAnswer
	}
	return nil
}

// fixedStats is a server whose stats never change.
type fixedStats struct{}

func (fixedStats) Stats() (proc.Stats, error) { return proc.Stats{PeakRSS: 1 << 20}, nil }

func TestRunStopsOnTheFirstWrongAnswer(t *testing.T) {
	s := &failingSession{}
	s.limit.Store(50)
	opt := loadgen.Options{InFlight: 3, Warmup: time.Hour, Window: time.Hour}
	done := make(chan error, 1)
	go func() {
		_, err := loadgen.Run(t.Context(), s, fixedStats{}, opt)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, errWrongAnswer) {
			t.Fatalf("Run returned %v, want the session's error %v", err, errWrongAnswer)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run kept going for 10 s after a wrong answer; it must stop at once")
	}
}

func TestRunRejectsAnEmptyShape(t *testing.T) {
	_, err := loadgen.Run(t.Context(), &failingSession{}, fixedStats{}, loadgen.Options{InFlight: 0, Window: time.Second})
	if err == nil {
		t.Fatal("Run accepted 0 calls in flight")
	}
}

// steppingStore has spent cpu and done commands more at each reading, in
// half as many round trips, a tenth of the commands' count of them in the
// background, and counted a fifth of the commands' count of requests.
type steppingStore struct {
	cpu      time.Duration
	commands int64 // negative: not counted
	readings atomic.Int64
}

func (s *steppingStore) Spent(context.Context) (loadgen.Spending, error) {
	n := s.readings.Add(1) - 1
	if s.commands < 0 {
		return loadgen.Spending{CPU: time.Duration(n) * s.cpu, Commands: -1, RoundTrips: -1, BackgroundRoundTrips: -1, Requests: -1}, nil
	}
	return loadgen.Spending{CPU: time.Duration(n) * s.cpu, Commands: 7 + n*s.commands, RoundTrips: 3 + n*s.commands/2,
		BackgroundRoundTrips: 1 + n*s.commands/10, Requests: 2 + n*s.commands/5}, nil
}

func TestRunDividesTheStoresSpendingOverTheWindowByItsRequests(t *testing.T) {
	s := &failingSession{}
	s.limit.Store(1 << 62)
	opt := loadgen.Options{InFlight: 2, Warmup: 10 * time.Millisecond, Window: 50 * time.Millisecond}
	for _, commands := range []int64{1000, -1} {
		store := &steppingStore{cpu: 2 * time.Second, commands: commands}
		opt.Store = store
		r, err := loadgen.Run(t.Context(), s, fixedStats{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := store.readings.Load(); got != 2 {
			t.Fatalf("the store was read %d times, want once at each end of the window", got)
		}
		if want := 2 * time.Second / time.Duration(r.Requests); r.StoreCPUPerRequest != want {
			t.Errorf("StoreCPUPerRequest = %s, want 2 s over %d requests = %s", r.StoreCPUPerRequest, r.Requests, want)
		}
		want := 0.0
		if commands > 0 {
			want = float64(commands) / float64(r.Requests)
		}
		if r.StoreCommandsPerRequest != want || r.StoreRoundTripsPerRequest != want/2 {
			t.Errorf("with %d commands, StoreCommandsPerRequest = %v and StoreRoundTripsPerRequest = %v, want %v and %v",
				commands, r.StoreCommandsPerRequest, r.StoreRoundTripsPerRequest, want, want/2)
		}
		wantRequests, wantBackground := 0.0, 0.0
		if commands > 0 {
			wantRequests = float64(commands/2-commands/10) / float64(commands/5) // the server's count, not the client's
			wantBackground = float64(commands/10) / r.Window.Seconds()
		}
		if r.StoreRequestRoundTripsPerRequest != wantRequests || r.StoreBackgroundRoundTripsPerSecond != wantBackground {
			t.Errorf("with %d commands, StoreRequestRoundTripsPerRequest = %v and StoreBackgroundRoundTripsPerSecond = %v, want %v and %v",
				commands, r.StoreRequestRoundTripsPerRequest, r.StoreBackgroundRoundTripsPerSecond, wantRequests, wantBackground)
		}
	}
}

// gatedSession answers no call until open is closed, and then each in a
// millisecond (a synctest bubble's clock moves only while it waits).
type gatedSession struct{ open chan struct{} }

func (s gatedSession) Echo(ctx context.Context, _ string) error {
	select {
	case <-s.open:
		time.Sleep(time.Millisecond)
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// A server that has not answered yet may still be setting up: a weft
// server killed by the SIGUSR1 that asks its spending before it installed
// the handler failed a CI run. The warm-up starts at the first answer.
func TestRunReadsTheStoreOnlyOnceTheServerHasAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		session := gatedSession{open: make(chan struct{})}
		store := &steppingStore{cpu: time.Second, commands: -1}
		opt := loadgen.Options{InFlight: 2, Warmup: time.Second, Window: time.Second, Store: store}
		done := make(chan error, 1)
		go func() {
			_, err := loadgen.Run(t.Context(), session, fixedStats{}, opt)
			done <- err
		}()
		time.Sleep(10 * opt.Warmup) // no answer comes meanwhile
		if got := store.readings.Load(); got != 0 {
			t.Fatalf("the store was read %d times before the server answered a call", got)
		}
		close(session.open)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := store.readings.Load(); got != 2 {
			t.Fatalf("the store was read %d times, want once at each end of the window", got)
		}
	})
}

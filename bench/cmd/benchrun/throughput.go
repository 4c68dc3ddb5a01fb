package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/proc"
)

// Transports the throughput runs use.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
)

// cell is one row shape of the throughput table.
type cell struct {
	Transport string
	InFlight  int
}

// String names the cell in logs and tables.
func (c cell) String() string { return fmt.Sprintf("%s, %d in flight", c.Transport, c.InFlight) }

// cells lists the throughput rows in report order.
func cells() []cell {
	return []cell{
		{transportStdio, 1}, {transportStdio, 32},
		{transportHTTP, 1}, {transportHTTP, 32},
	}
}

// workload is what the calls of a row are.
type workload int

const (
	// echoCalls are plain tools/call of echo.
	echoCalls workload = iota
	// taskLives take each echo call through a task's whole life (see
	// mcpwire.TaskSession), on a server started with its TaskArgs.
	taskLives
)

// rowResult is one row measured.
type rowResult struct {
	loadgen.Result
	// PollsPerTask is the mean number of tasks/get per task (task lives only).
	PollsPerTask float64 `json:",omitzero"`
}

// measureThroughput starts a fresh server for c, loads it with echo calls
// and stops it. A non-empty profile is the file the server writes its CPU
// profile to.
func measureThroughput(ctx context.Context, impl implementation, bin binary, c cell, opt loadgen.Options, profile string) (loadgen.Result, error) {
	r, err := measureRow(ctx, impl, bin, c, opt, echoCalls, profile)
	return r.Result, err
}

// measureTaskLife starts a fresh server for c with impl's TaskArgs, loads it
// with task lives and stops it; profile is as for measureThroughput.
func measureTaskLife(ctx context.Context, impl implementation, bin binary, c cell, opt loadgen.Options, profile string) (rowResult, error) {
	return measureRow(ctx, impl, bin, c, opt, taskLives, profile)
}

// measureRow starts a fresh server for c, loads it with w and stops it;
// profile is as for measureThroughput.
func measureRow(ctx context.Context, impl implementation, bin binary, c cell, opt loadgen.Options, w workload, profile string) (rowResult, error) {
	opt.InFlight = c.InFlight
	var args []string
	if w == taskLives {
		args = slices.Clone(impl.TaskArgs)
	}
	if profile != "" {
		args = append(args, "-cpuprofile", profile)
	}
	var (
		server  *proc.Process
		session interface {
			loadgen.Session
			mcpwire.Caller
		}
		release = func() {}
	)
	switch c.Transport {
	case transportStdio:
		p, toServer, fromServer, err := proc.StartStdio(proc.Command{Path: bin.Path, Args: args})
		if err != nil {
			return rowResult{}, err
		}
		server = p
		s, err := mcpwire.NewStdio(ctx, fromServer, toServer)
		if err != nil {
			return rowResult{}, withServer(err, server)
		}
		session = s
	case transportHTTP:
		p, url, err := proc.StartHTTP(ctx, proc.Command{Path: bin.Path, Args: append(slices.Clone(impl.HTTPArgs), args...)})
		if err != nil {
			return rowResult{}, err
		}
		server = p
		client := mcpwire.NewHTTPClient(c.InFlight)
		// Idle connections the server never saw a request on would hold up
		// its graceful shutdown, so they are closed before it is stopped.
		release = client.CloseIdleConnections
		s, err := mcpwire.DialHTTP(ctx, client, url)
		if err != nil {
			release()
			return rowResult{}, withServer(err, server)
		}
		session = s
	default:
		return rowResult{}, fmt.Errorf("unknown transport %q", c.Transport)
	}

	var (
		load  loadgen.Session = session
		tasks *mcpwire.TaskSession
	)
	if w == taskLives {
		tasks = mcpwire.NewTaskSession(session)
		load = tasks
	}
	r, err := loadgen.Run(ctx, load, server, opt)
	release()
	if err != nil {
		return rowResult{}, withServer(err, server)
	}
	if err := server.Stop(); err != nil {
		return rowResult{}, err
	}
	res := rowResult{Result: r}
	if tasks != nil {
		res.PollsPerTask = tasks.PollsPerTask()
	}
	return res, nil
}

// withServer stops server after err and adds what it wrote to standard error.
func withServer(err error, server *proc.Process) error {
	return errors.Join(fmt.Errorf("%w; server standard error: %s", err, server.Stderr()), server.Stop())
}

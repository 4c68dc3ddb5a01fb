package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/weftmcp/weft/bench/internal/loadgen"
	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/placement"
	"github.com/weftmcp/weft/bench/internal/proc"
)

// client is a session the load runs on: echo calls, or the requests of a
// task's life.
type client interface {
	loadgen.Session
	mcpwire.Caller
}

// rowPlace says where a row's files go.
type rowPlace struct {
	// SQLiteDir is the folder SQLite stores are made in.
	SQLiteDir string
	// Profile, if not empty, is the file the server writes its CPU
	// profile to.
	Profile string
}

// measureRow runs row k of impl: it makes the row's place in its store, if
// it has one, starts a fresh server, loads it and stops it, then removes
// the place.
func measureRow(ctx context.Context, k rowKey, impl implementation, bin binary, opt loadgen.Options, where rowPlace) (res rowResult, err error) {
	opt.InFlight = k.Cell.InFlight
	var args []string
	switch k.Cell.Transport {
	case transportStdio:
		args = slices.Clone(impl.StdioArgs)
	case transportHTTP:
		args = slices.Clone(impl.HTTPArgs)
	default:
		return rowResult{}, fmt.Errorf("unknown transport %q", k.Cell.Transport)
	}
	if k.Variant != "" {
		v, ok := impl.variant(k.Variant)
		if !ok {
			return rowResult{}, fmt.Errorf("%s has no variant %q", impl.Name, k.Variant)
		}
		args = append(args, v.Args...)
	}
	store := &rowStore{}
	if k.Store != "" {
		p, err := placement.New(ctx, k.Store, where.SQLiteDir)
		if err != nil {
			return rowResult{}, err
		}
		defer func() {
			// The row's own context may have ended; the place must go anyway.
			err = errors.Join(err, p.Remove(context.WithoutCancel(ctx)))
		}()
		if k.Section == sectionTasks {
			args = append(args, impl.taskArgs(p)...)
		} else {
			args = append(args, p.ServerArgs()...)
		}
		store.service = p.Service()
		if k.Store == "redis" && impl.MemoryTaskArgs == nil {
			// A server that takes the placement's flags (weft's) counts its
			// round trips to Redis and reports them when asked
			// (-store-stats).
			f, err := os.CreateTemp("", "weft-bench-round-trips-*")
			if err != nil {
				return rowResult{}, err
			}
			f.Close()
			defer os.Remove(f.Name())
			store.trips = &roundTripCounter{file: f.Name()}
			args = append(args, "-store-stats", f.Name())
		}
	}
	if store.service != nil || store.trips != nil {
		opt.Store = store
	}
	if where.Profile != "" {
		args = append(args, "-cpuprofile", where.Profile)
	}
	return serveRow(ctx, k, bin, args, opt, store.started)
}

// serveRow starts bin with args for row k, tells started, loads it and
// stops it.
func serveRow(ctx context.Context, k rowKey, bin binary, args []string, opt loadgen.Options, started func(*proc.Process)) (rowResult, error) {
	var (
		server  *proc.Process
		session client
		release = func() {}
	)
	switch k.Cell.Transport {
	case transportStdio:
		p, toServer, fromServer, err := proc.StartStdio(proc.Command{Path: bin.Path, Args: args})
		if err != nil {
			return rowResult{}, err
		}
		server = p
		started(p)
		if k.modern() {
			session = mcpwire.NewModernStdio(fromServer, toServer)
			break
		}
		s, err := mcpwire.NewStdio(ctx, fromServer, toServer)
		if err != nil {
			return rowResult{}, withServer(err, server)
		}
		session = s
	case transportHTTP:
		p, url, err := proc.StartHTTP(ctx, proc.Command{Path: bin.Path, Args: args})
		if err != nil {
			return rowResult{}, err
		}
		server = p
		started(p)
		c := mcpwire.NewHTTPClient(k.Cell.InFlight)
		// Idle connections the server never saw a request on would hold up
		// its graceful shutdown, so they are closed before it is stopped.
		release = c.CloseIdleConnections
		if k.modern() {
			session = mcpwire.NewModernHTTP(c, url)
			break
		}
		s, err := mcpwire.DialHTTP(ctx, c, url)
		if err != nil {
			release()
			return rowResult{}, withServer(err, server)
		}
		session = s
	}

	var (
		load  loadgen.Session = session
		tasks *mcpwire.TaskSession
	)
	switch k.Section {
	case sectionTasks:
		tasks = mcpwire.NewTaskSession(session, k.Surface)
		load = tasks
	case sectionModern:
		load = mcpwire.NewModernCalls(session)
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
		res.PollsPerTask, res.RequestsPerTask = tasks.PollsPerTask(), tasks.RequestsPerTask()
	}
	return res, nil
}

// withServer stops server after err and adds what it wrote to standard error.
func withServer(err error, server *proc.Process) error {
	return errors.Join(fmt.Errorf("%w; server standard error: %s", err, server.Stderr()), server.Stop())
}

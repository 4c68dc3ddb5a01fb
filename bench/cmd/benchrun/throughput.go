package main

import (
	"context"
	"errors"
	"fmt"

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

// measureThroughput starts a fresh server for c, loads it and stops it.
func measureThroughput(ctx context.Context, impl implementation, bin binary, c cell, opt loadgen.Options) (loadgen.Result, error) {
	opt.InFlight = c.InFlight
	var (
		server  *proc.Process
		session loadgen.Session
		release = func() {}
	)
	switch c.Transport {
	case transportStdio:
		p, toServer, fromServer, err := proc.StartStdio(proc.Command{Path: bin.Path})
		if err != nil {
			return loadgen.Result{}, err
		}
		server = p
		s, err := mcpwire.NewStdio(ctx, fromServer, toServer)
		if err != nil {
			return loadgen.Result{}, withServer(err, server)
		}
		session = s
	case transportHTTP:
		p, url, err := proc.StartHTTP(ctx, proc.Command{Path: bin.Path, Args: impl.HTTPArgs})
		if err != nil {
			return loadgen.Result{}, err
		}
		server = p
		client := mcpwire.NewHTTPClient(c.InFlight)
		// Idle connections the server never saw a request on would hold up
		// its graceful shutdown, so they are closed before it is stopped.
		release = client.CloseIdleConnections
		s, err := mcpwire.DialHTTP(ctx, client, url)
		if err != nil {
			release()
			return loadgen.Result{}, withServer(err, server)
		}
		session = s
	default:
		return loadgen.Result{}, fmt.Errorf("unknown transport %q", c.Transport)
	}

	r, err := loadgen.Run(ctx, session, server, opt)
	release()
	if err != nil {
		return loadgen.Result{}, withServer(err, server)
	}
	if err := server.Stop(); err != nil {
		return loadgen.Result{}, err
	}
	return r, nil
}

// withServer stops server after err and adds what it wrote to standard error.
func withServer(err error, server *proc.Process) error {
	return errors.Join(fmt.Errorf("%w; server standard error: %s", err, server.Stderr()), server.Stop())
}

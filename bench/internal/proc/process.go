//go:build linux

// Package proc runs the benchmark's server processes and reads their CPU time
// and memory from /proc (Linux only).
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/weftmcp/weft/internal/testport"
)

// stopGrace is how long a server may take to exit once told to stop before
// it is killed.
const stopGrace = 5 * time.Second

// readyTimeout bounds how long an HTTP server may take to start listening.
const readyTimeout = 15 * time.Second

// Process is a running server.
type Process struct {
	cmd     *exec.Cmd
	name    string
	stdin   io.Closer // the server's standard input, for stdio servers
	stdout  io.Closer // the benchmark's end of a stdio server's standard output
	stderr  *headBuffer
	exited  chan struct{}
	waitErr error // how the process ended; read only after exited is closed
}

// Command says which server binary to run and how.
type Command struct {
	// Path is the server binary.
	Path string
	// Args are its arguments.
	Args []string
	// Env holds KEY=VALUE settings added to the benchmark's own environment.
	Env []string
}

// cmd returns the exec.Cmd for c with extra arguments appended.
func (c Command) cmd(extra ...string) *exec.Cmd {
	cmd := exec.Command(c.Path, append(slices.Clone(c.Args), extra...)...)
	if len(c.Env) != 0 {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	return cmd
}

// start runs cmd and watches for its exit. The server dies with the
// benchmark, even if the benchmark is killed.
func start(cmd *exec.Cmd) (*Process, error) {
	p := &Process{cmd: cmd, name: cmd.Path, stderr: newHeadBuffer(8 << 10), exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w (was it built?)", cmd.Path, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// StartStdio runs the server c, serving MCP on its standard streams:
// messages written to toServer reach it and its answers are read from
// fromServer, which ends when the server exits.
func StartStdio(c Command) (p *Process, toServer io.Writer, fromServer io.Reader, err error) {
	bin := c.Path
	cmd := c.cmd()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("make standard input pipe for %s: %w", bin, err)
	}
	readEnd, writeEnd, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("make standard output pipe for %s: %w", bin, err)
	}
	cmd.Stdout = writeEnd
	p, err = start(cmd)
	writeEnd.Close() // the child holds its own copy; EOF comes when it exits
	if err != nil {
		readEnd.Close()
		return nil, nil, nil, err
	}
	p.stdin, p.stdout = stdin, readEnd
	return p, stdin, readEnd, nil
}

// StartHTTP runs the server c with -http on a free loopback port added to
// its arguments, waits until it accepts connections, and returns the URL of
// its /mcp endpoint.
func StartHTTP(ctx context.Context, c Command) (*Process, string, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, "", err
	}
	p, err := start(c.cmd("-http", addr))
	if err != nil {
		return nil, "", err
	}
	if err := p.awaitListening(ctx, addr); err != nil {
		p.Stop()
		return nil, "", err
	}
	return p, "http://" + addr + "/mcp", nil
}

// freeLoopbackAddr returns a 127.0.0.1 address no port-0 listener, outgoing
// connection or other harness or test process gets meanwhile (testport).
func freeLoopbackAddr() (string, error) {
	port, err := testport.Free()
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	return "127.0.0.1:" + port, nil
}

// awaitListening returns once addr accepts a TCP connection, or an error if
// the server exits or does not listen within readyTimeout.
func (p *Process) awaitListening(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var dialer net.Dialer
	for {
		conn, err := dialer.DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before listening on %s: %v; its standard error: %s", p.name, addr, p.waitErr, p.stderr)
		case <-ctx.Done():
			return fmt.Errorf("%s did not listen on %s within %s: %w; its standard error: %s", p.name, addr, readyTimeout, context.Cause(ctx), p.stderr)
		case <-tick.C:
		}
	}
}

// PID returns the server's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Stats reads the server's CPU time and memory now.
func (p *Process) Stats() (Stats, error) { return ReadStats(p.PID()) }

// Stderr returns the start of what the server wrote to its standard error.
func (p *Process) Stderr() string { return p.stderr.String() }

// Exited returns a channel closed once the process has exited, and a
// function that then says how it ended.
func (p *Process) Exited() (<-chan struct{}, func() error) {
	return p.exited, func() error { return p.waitErr }
}

// Stop tells the server to exit (closing its standard input for a stdio
// server, SIGTERM for an HTTP one), kills it if it has not exited within
// stopGrace, waits for it and releases its pipes. It reports an error if the
// server had already exited on its own or had to be killed.
func (p *Process) Stop() error {
	if p.stdout != nil {
		defer p.stdout.Close()
	}
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited before it was told to stop: %v; its standard error: %s", p.name, p.waitErr, p.stderr)
	default:
	}
	if p.stdin != nil {
		p.stdin.Close()
	} else if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal %s to stop: %w", p.name, err)
	}
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-p.exited:
		return nil
	case <-timer.C:
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	<-p.exited
	return fmt.Errorf("%s did not exit within %s of being told to stop and was killed", p.name, stopGrace)
}

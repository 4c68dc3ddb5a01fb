package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// CommandStream runs a server command and speaks newline-delimited JSON over
// its stdin and stdout (the MCP stdio transport as a client sees it). The
// command's stderr goes to os.Stderr or the writer of WithStderr.
type CommandStream struct {
	stdio  *StdioStream
	cmd    *exec.Cmd
	name   string
	stdin  *os.File // our end of the command's stdin
	stdout *os.File // our end of the command's stdout
	grace  time.Duration

	exited  chan struct{} // closed when cmd.Wait has returned
	waitErr error         // cmd.Wait's result, set before exited is closed

	// released is set when stdout was closed because the process had
	// exited a grace period before while something else held it open.
	released atomic.Bool

	closing   atomic.Bool
	stopping  chan struct{} // closed when Close begins
	closeOnce sync.Once
	closeErr  error
}

// NewCommand starts cmd with its stdin and stdout connected to the returned
// stream. cmd.Stdin and cmd.Stdout must be unset. When cmd.WaitDelay is zero
// it is set to the grace period, so a grandchild holding stderr open cannot
// stall the end. It reads every Option. After Close returns,
// cmd.ProcessState describes how the process ended.
func NewCommand(cmd *exec.Cmd, opts ...Option) (*CommandStream, error) {
	o := buildOptions(opts)
	name := filepath.Base(cmd.Path)
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, fmt.Errorf("transport: command %s: cmd.Stdin and cmd.Stdout must be unset; the stream connects them", name)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("transport: command %s: creating the stdin pipe: %w", name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("transport: command %s: creating the stdout pipe: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if o.stderr != nil {
		cmd.Stderr = o.stderr
	} else if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = o.gracePeriod
	}
	err = cmd.Start()
	// The child has its own copies of these ends now (or never will).
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("transport: starting command %s: %w", name, err)
	}
	s := &CommandStream{
		// stdout is wrapped so that closing the StdioStream cannot close it:
		// it must stay open until the process has exited (see Close).
		stdio:    NewStdio(struct{ io.Reader }{outR}, inW, opts...),
		cmd:      cmd,
		name:     name,
		stdin:    inW,
		stdout:   outR,
		grace:    o.gracePeriod,
		exited:   make(chan struct{}),
		stopping: make(chan struct{}),
	}
	go func() {
		err := cmd.Wait()
		if errors.Is(err, exec.ErrWaitDelay) {
			// The process exited cleanly; only copying its stderr to a
			// writer was cut short, a process it started holding it open.
			err = nil
		}
		s.waitErr = err
		close(s.exited)
		s.releaseStdout()
	}()
	return s, nil
}

// Read returns the next message from the command's stdout. When stdout ends
// and the process has exited with a failure, the error says how (and still
// matches io.EOF); it waits at most the grace period for the process to exit.
// Output ends a grace period after the process exited even when a process
// it started still holds stdout open.
func (s *CommandStream) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := s.stdio.Read(ctx)
	if errors.Is(err, os.ErrClosed) && s.released.Load() && !s.closing.Load() {
		err = io.EOF // the process is gone: its output has ended
	}
	if !errors.Is(err, io.EOF) || s.closing.Load() {
		return msg, err
	}
	timer := time.NewTimer(s.grace)
	defer timer.Stop()
	select {
	case <-s.exited:
		if s.waitErr != nil {
			return nil, fmt.Errorf("transport: command %s exited: %w (%w)", s.name, s.waitErr, io.EOF)
		}
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil, err
}

// releaseStdout closes stdout a grace period after the process exited,
// unless Close comes first: a process the server started may hold its
// stdout open long after it, and Read, which would wait for that process
// too, then reports the exit. The server's own output, written before it
// exited, has had the grace period to be read.
func (s *CommandStream) releaseStdout() {
	timer := time.NewTimer(s.grace)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-s.stopping:
		return
	}
	s.released.Store(true)
	s.stdout.Close()
}

// Write sends msg to the command's stdin.
func (s *CommandStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	return s.stdio.Write(ctx, msg)
}

// Close stops the command: it closes its stdin, waits up to the grace period
// for it to exit, then kills it. It returns nil when the process exited
// cleanly, and otherwise an error with the exit status: when it had failed
// before Close, failed after its stdin closed, or had to be killed.
func (s *CommandStream) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.stop() })
	return s.closeErr
}

func (s *CommandStream) stop() error {
	s.closing.Store(true)
	close(s.stopping)
	var exitedBefore bool
	select {
	case <-s.exited:
		exitedBefore = true
	default:
	}
	s.stdio.Close() // closes stdin: a well-behaved server exits on EOF
	killed := false
	timer := time.NewTimer(s.grace)
	select {
	case <-s.exited:
	case <-timer.C:
		killed = s.cmd.Process.Kill() == nil
		<-s.exited
	}
	timer.Stop()
	// Only now, with the process gone, close stdout: closing it earlier
	// could make the server's last writes fail and its exit look like a crash.
	s.stdout.Close()
	switch {
	case exitedBefore && s.waitErr != nil:
		return fmt.Errorf("transport: command %s had already exited: %w", s.name, s.waitErr)
	case killed:
		return fmt.Errorf("transport: command %s did not exit within %v of its stdin closing, so it was killed", s.name, s.grace)
	case s.waitErr != nil:
		return fmt.Errorf("transport: command %s exited with an error after its stdin closed: %w", s.name, s.waitErr)
	}
	return nil
}

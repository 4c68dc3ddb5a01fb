package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
)

// maxMessage bounds one incoming line; longer ones end the session.
const maxMessage = 4 << 20

// serveStdio serves one session of newline-delimited JSON-RPC from in to out
// until in ends, then waits for running requests. Cancelling ctx closes in.
// Each request runs in its own goroutine and answers are written whole
// under a mutex.
func serveStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	defer context.AfterFunc(ctx, func() { in.Close() })()

	var (
		writeMu sync.Mutex
		running sync.WaitGroup
		failed  error
	)
	write := func(data []byte) {
		writeMu.Lock()
		defer writeMu.Unlock()
		if failed != nil {
			return
		}
		if _, err := out.Write(data); err != nil {
			failed = fmt.Errorf("write response: %w", err)
		}
	}

	err := readLines(in, func(line []byte) {
		data := make([]byte, len(line))
		copy(data, line)
		running.Go(func() {
			if answer := respond(data); answer != nil {
				write(encode(answer))
			}
		})
	})
	running.Wait()
	if err != nil && ctx.Err() == nil {
		return err
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	return failed
}

// serveStdioSerially serves like serveStdio but answers each request on the
// reading goroutine before reading the next: the least a stdio loop can do
// per request, so the floor of what a call can cost. It is not a valid MCP
// server, since it cannot see notifications/cancelled while a request runs.
func serveStdioSerially(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	defer context.AfterFunc(ctx, func() { in.Close() })()
	var failed error
	err := readLines(in, func(line []byte) {
		if answer := respond(line); answer != nil && failed == nil {
			if _, err := out.Write(encode(answer)); err != nil {
				failed = fmt.Errorf("write response: %w", err)
			}
		}
	})
	if err != nil && ctx.Err() == nil {
		return err
	}
	return failed
}

// readLines calls handle with each non-empty line of in (valid only during
// the call) until in ends.
func readLines(in io.Reader, handle func(line []byte)) error {
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 64<<10), maxMessage)
	for lines.Scan() {
		if line := lines.Bytes(); len(line) != 0 {
			handle(line)
		}
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("read request: %w (lines are limited to %d bytes)", err, maxMessage)
	}
	return nil
}

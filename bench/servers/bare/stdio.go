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

	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 64<<10), maxMessage)
	for lines.Scan() {
		line := lines.Bytes()
		if len(line) == 0 {
			continue
		}
		data := make([]byte, len(line))
		copy(data, line)
		running.Go(func() {
			if answer := respond(data); answer != nil {
				write(encode(answer))
			}
		})
	}
	running.Wait()
	if err := lines.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("read request: %w (lines are limited to %d bytes)", err, maxMessage)
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	return failed
}

//go:build linux

package proc

import (
	"strconv"
	"sync"
)

// headBuffer keeps the first bytes written to it and counts the rest, so a
// chatty server cannot make the benchmark hold its whole standard error.
type headBuffer struct {
	mu      sync.Mutex
	data    []byte
	limit   int
	dropped int
}

// newHeadBuffer returns a buffer keeping up to limit bytes.
func newHeadBuffer(limit int) *headBuffer { return &headBuffer{limit: limit} }

// Write implements io.Writer; it never fails.
func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keep := min(len(p), b.limit-len(b.data))
	b.data = append(b.data, p[:keep]...)
	b.dropped += len(p) - keep
	return len(p), nil
}

// String returns what was kept, noting how much was not.
func (b *headBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.data) == 0 {
		return "(empty)"
	}
	if b.dropped > 0 {
		return string(b.data) + "… (" + strconv.Itoa(b.dropped) + " more bytes)"
	}
	return string(b.data)
}

package sessions

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryMessageLog is a MessageLog in the memory of one process, for the
// Handlers of one process that share a MemoryStore. Create one with
// NewMemoryMessageLog.
type MemoryMessageLog struct {
	mu      sync.Mutex
	boxes   map[memBoxKey]*memBox
	readers map[string]memReader
}

var _ MessageLog = (*MemoryMessageLog)(nil)

// memBoxKey names one box of one session.
type memBoxKey struct {
	session string
	box     Box
}

// memBox is a box's newest messages: msgs[i] is numbered last-len(msgs)+1+i.
type memBox struct {
	last uint64
	msgs [][]byte
}

// memReader is who holds a session's GET stream, and until when.
type memReader struct {
	id    string
	until time.Time
}

// NewMemoryMessageLog returns an empty MemoryMessageLog.
func NewMemoryMessageLog() *MemoryMessageLog {
	return &MemoryMessageLog{boxes: make(map[memBoxKey]*memBox), readers: make(map[string]memReader)}
}

// Append implements MessageLog.
func (l *MemoryMessageLog) Append(ctx context.Context, session string, box Box, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("sessions: append: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := memBoxKey{session, box}
	b := l.boxes[k]
	if b == nil {
		b = &memBox{}
		l.boxes[k] = b
	}
	b.last++
	b.msgs = append(b.msgs, slices.Clone(data))
	if n := len(b.msgs) - KeepMessages; n > 0 {
		clear(b.msgs[:n])
		b.msgs = b.msgs[n:]
	}
	return b.last, nil
}

// Read implements MessageLog.
func (l *MemoryMessageLog) Read(ctx context.Context, session string, box Box, after uint64) ([]Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: read: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.boxes[memBoxKey{session, box}]
	if b == nil || after >= b.last {
		return nil, nil
	}
	first := b.last - uint64(len(b.msgs)) + 1
	if after+1 < first {
		return nil, fmt.Errorf("%w: message %d of session %s was dropped (the oldest kept is %d)", ErrTrimmed, after+1, session, first)
	}
	out := make([]Message, 0, b.last-after)
	for seq := after + 1; seq <= b.last; seq++ {
		out = append(out, Message{Seq: seq, Data: slices.Clone(b.msgs[seq-first])})
	}
	return out, nil
}

// Last implements MessageLog.
func (l *MemoryMessageLog) Last(ctx context.Context, session string, box Box) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("sessions: last: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.boxes[memBoxKey{session, box}]; b != nil {
		return b.last, nil
	}
	return 0, nil
}

// SetReader implements MessageLog.
func (l *MemoryMessageLog) SetReader(ctx context.Context, session, reader string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sessions: set reader: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if until.IsZero() {
		if l.readers[session].id == reader {
			delete(l.readers, session)
		}
		return nil
	}
	l.readers[session] = memReader{id: reader, until: until}
	return nil
}

// HasReader implements MessageLog.
func (l *MemoryMessageLog) HasReader(ctx context.Context, session string, now time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("sessions: has reader: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.readers[session]
	return ok && r.until.After(now), nil
}

// Delete implements MessageLog.
func (l *MemoryMessageLog) Delete(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sessions: delete messages: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.boxes, memBoxKey{session, ToClient})
	delete(l.boxes, memBoxKey{session, ToServer})
	delete(l.readers, session)
	return nil
}

package mcpwire

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// maxLine bounds one message from the server.
const maxLine = 4 << 20

// StdioSession is an initialized session over a server's standard streams.
// It multiplexes concurrent calls over one newline-delimited JSON-RPC
// stream, matching answers to calls by id; it is safe for concurrent use.
type StdioSession struct {
	out     io.Writer
	writeMu sync.Mutex
	nextID  atomic.Int64

	mu      sync.Mutex
	pending map[int64]chan<- envelope
	err     error // why the stream stopped; set once, guarded by mu

	stopped chan struct{} // closed when the reader stops
}

// NewStdio starts a session on a server's standard streams: answers are read
// from fromServer, messages written to toServer. It performs the handshake
// and returns once the session is initialized. The session reads until
// fromServer ends, so the caller ends it by stopping the server. A call
// abandoned through its context leaves an answer that will arrive unawaited
// and stop the session, so abandon calls only when done with the session.
func NewStdio(ctx context.Context, fromServer io.Reader, toServer io.Writer) (*StdioSession, error) {
	s := NewModernStdio(fromServer, toServer)
	result, err := s.Call(ctx, "initialize", json.RawMessage(initializeParams))
	if err != nil {
		return nil, err
	}
	if err := checkInitialize(result); err != nil {
		return nil, err
	}
	if err := s.writeLine([]byte(initializedNotification)); err != nil {
		return nil, err
	}
	return s, nil
}

// NewModernStdio starts a client on a server's standard streams, as
// NewStdio does, that sends requests of ModernVersion: there is no
// handshake, and the caller puts the _meta of each request in its params.
func NewModernStdio(fromServer io.Reader, toServer io.Writer) *StdioSession {
	s := &StdioSession{
		out:     toServer,
		pending: make(map[int64]chan<- envelope),
		stopped: make(chan struct{}),
	}
	go s.read(fromServer)
	return s
}

// Echo calls the echo tool with text. It returns nil only when the answer is
// a successful result whose only content is a text block equal to text.
func (s *StdioSession) Echo(ctx context.Context, text string) error {
	result, err := s.Call(ctx, "tools/call", echoParams{Name: ToolName, Arguments: echoArgs{Text: text}})
	if err != nil {
		return err
	}
	return checkEcho(result, text)
}

// Call sends one request, waits for its answer and returns its result; an
// error answer is an error.
func (s *StdioSession) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	data, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	answer := make(chan envelope, 1)
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return nil, s.err
	}
	s.pending[id] = answer
	s.mu.Unlock()

	if err := s.writeLine(data); err != nil {
		s.forget(id)
		return nil, err
	}
	select {
	case env := <-answer:
		return resultOf(env, method)
	case <-s.stopped:
		return nil, s.stopErr()
	case <-ctx.Done():
		s.forget(id)
		return nil, fmt.Errorf("%s (id %d) got no answer: %w", method, id, context.Cause(ctx))
	}
}

// CallNamed is Call; a stream has no headers to mirror the name in.
func (s *StdioSession) CallNamed(ctx context.Context, method, _ string, params any) (json.RawMessage, error) {
	return s.Call(ctx, method, params)
}

// writeLine sends one message followed by a newline.
func (s *StdioSession) writeLine(data []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.out.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write to the server's standard input: %w (has it exited?)", err)
	}
	return nil
}

// forget drops the waiter for id.
func (s *StdioSession) forget(id int64) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// stopErr returns why the stream stopped.
func (s *StdioSession) stopErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// read delivers each answer to its waiter until the stream ends or breaks
// the protocol.
func (s *StdioSession) read(fromServer io.Reader) {
	lines := bufio.NewScanner(fromServer)
	lines.Buffer(make([]byte, 64<<10), maxLine)
	for lines.Scan() {
		if len(lines.Bytes()) == 0 {
			continue
		}
		if err := s.deliver(lines.Bytes()); err != nil {
			s.stop(err)
			return
		}
	}
	err := lines.Err()
	if err == nil {
		err = io.EOF
	}
	s.stop(fmt.Errorf("the server's standard output ended: %w", err))
}

// deliver routes one message: answers to their waiters, notifications are
// ignored, anything else is a protocol error.
func (s *StdioSession) deliver(line []byte) error {
	env, err := decodeEnvelope(line)
	if err != nil {
		return err
	}
	if env.Method != "" {
		if len(env.ID) != 0 {
			return serverRequestError(env)
		}
		return nil
	}
	id, err := strconv.ParseInt(string(env.ID), 10, 64)
	if err != nil {
		return fmt.Errorf("the server answered with id %s, which this client never sent", env.ID)
	}
	s.mu.Lock()
	answer, ok := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("the server answered id %d, which is not awaiting an answer (answered twice?)", id)
	}
	answer <- env
	return nil
}

// stop records why the stream ended and releases every waiter.
func (s *StdioSession) stop(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
		close(s.stopped)
	}
}

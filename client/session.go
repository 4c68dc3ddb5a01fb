package client

import (
	"sync"
	"sync/atomic"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// Session is one connection to a server, in the protocol version settled by
// Connect. Its methods are safe for concurrent use.
type Session struct {
	client *Client
	opts   *Options
	conn   *jsonrpc.Conn

	state    atomic.Pointer[negotiated] // nil until the version is settled
	logLevel atomic.Pointer[mcp.LoggingLevel]
	probing  atomic.Bool // the server/discover probe is in flight

	progress  progressTable
	subs      subscriptionTable
	tools     toolTable
	taskWakes taskWakes
	host      *taskHost // client-hosted tasks; nil without Options.Tasks

	closeMu   sync.Mutex
	closed    bool           // Close was called; guarded by closeMu
	notifying sync.WaitGroup // cancellation notifications being sent; Add under closeMu
}

// negotiated is what the session settled with the server. It is replaced
// whole (by Discover), never modified.
type negotiated struct {
	version      string
	modern       bool
	serverInfo   mcp.Implementation
	capabilities mcp.ServerCapabilities
	instructions string
	// meta holds the encoded per-request _meta members of a modern session:
	// protocol version, client capabilities and client info; taskMeta the
	// same with the tasks extension declared.
	meta, taskMeta mcp.Meta
}

func newSession(c *Client) *Session {
	s := &Session{client: c, opts: &c.opts}
	if c.opts.LogLevel != "" {
		lvl := c.opts.LogLevel
		s.logLevel.Store(&lvl)
	}
	s.progress.handlers = make(map[string]ProgressHandler)
	s.subs.byID = make(map[string]*Subscription)
	if c.opts.Tasks != nil {
		s.host = newTaskHost(c)
	}
	return s
}

// settled returns the negotiated state; nil while Connect is negotiating.
func (s *Session) settled() *negotiated { return s.state.Load() }

// modern reports whether the session speaks a modern (2026-07-28+) version.
func (s *Session) modern() bool {
	st := s.state.Load()
	return st != nil && st.modern
}

// ProtocolVersion returns the negotiated protocol version; "" while
// Connect is negotiating it (a server may notify the client meanwhile).
func (s *Session) ProtocolVersion() string {
	if st := s.settled(); st != nil {
		return st.version
	}
	return ""
}

// IsModern reports whether the session speaks a modern version: stateless
// requests with per-request _meta, input_required results and
// subscriptions/listen instead of the legacy session features.
func (s *Session) IsModern() bool { return s.modern() }

// ServerInfo returns the server's self-description: from the initialize
// result (legacy) or the server/discover result's _meta (modern; empty if
// the server sent none). It is unverified and meant for display.
func (s *Session) ServerInfo() mcp.Implementation { return s.settled().serverInfo }

// ServerCapabilities returns the capabilities the server declared.
func (s *Session) ServerCapabilities() mcp.ServerCapabilities { return s.settled().capabilities }

// Instructions returns the server's instructions for using it, if any.
func (s *Session) Instructions() string { return s.settled().instructions }

// Close ends the session and closes the stream (for a subprocess, this
// stops the server). Open subscriptions are closed first, so the server
// ends their streams; calls in flight fail. It returns the stream's Close
// error.
func (s *Session) Close() error {
	for _, sub := range s.subs.all() {
		sub.Close()
	}
	s.closeMu.Lock()
	s.closed = true
	s.closeMu.Unlock()
	err := s.conn.Close()
	s.notifying.Wait()
	if s.host != nil {
		s.host.close()
	}
	return err
}

// Wait blocks until the session has ended and returns why: nil after Close,
// otherwise the error that ended the connection (one matching
// jsonrpc.ErrClosed, and io.EOF when the server closed its side).
func (s *Session) Wait() error {
	<-s.conn.Done()
	s.closeMu.Lock()
	closed := s.closed
	s.closeMu.Unlock()
	if closed {
		return nil
	}
	return s.conn.Err()
}

// allowBatch lets a 2025-03-26 server send batches, as that version allows.
func (s *Session) allowBatch() bool {
	st := s.state.Load()
	return st != nil && mcp.AllowsBatch(st.version)
}

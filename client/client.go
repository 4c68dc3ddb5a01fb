package client

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/weftmcp/weft/internal/wrap"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// Client is an MCP client: who it is and how it serves the server. It holds
// no connection; each Connect starts an independent Session.
type Client struct {
	impl       mcp.Implementation
	opts       Options
	logger     *slog.Logger
	chain      MethodHandler // Options.Middleware around send; nil without middleware
	serveChain ServeHandler  // Options.ServeMiddleware around serveMessage; nil without any
}

// New returns a client that introduces itself as impl. opts may be nil; the
// client keeps a copy.
func New(impl mcp.Implementation, opts *Options) *Client {
	c := &Client{impl: impl}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxInputRounds <= 0 {
		c.opts.MaxInputRounds = DefaultMaxInputRounds
	}
	if c.opts.ProbeTimeout <= 0 {
		c.opts.ProbeTimeout = DefaultProbeTimeout
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.opts.Tasks != nil {
		c.registerHostedTasks(c.opts.Tasks)
	}
	c.chain = wrap.Chain(c.opts.Middleware, send)
	c.serveChain = wrap.Chain(c.opts.ServeMiddleware, serveMessage)
	return c
}

// Connect speaks MCP over stream: it settles the protocol version (see
// Options.ProtocolVersion) and returns the session. On failure the stream is
// closed. ctx bounds the negotiation only; the session lives until Close or
// until the stream ends.
func (c *Client) Connect(ctx context.Context, stream jsonrpc.Stream) (*Session, error) {
	if v := c.opts.ProtocolVersion; v != "" && !mcp.IsSupported(v) {
		stream.Close()
		return nil, fmt.Errorf("client: Options.ProtocolVersion %q is not a version this client speaks; use one of %v or leave it empty to discover", v, mcp.SupportedVersions())
	}
	if lvl := c.opts.LogLevel; lvl != "" && !lvl.Valid() {
		stream.Close()
		return nil, fmt.Errorf("client: Options.LogLevel %q is not a logging level; use one of debug, info, notice, warning, error, critical, alert, emergency", lvl)
	}
	s := newSession(c)
	s.conn = jsonrpc.NewConn(stream, jsonrpc.ConnOptions{
		Handler:         s.handler(),
		AllowBatch:      s.allowBatch,
		OnCallAbandoned: s.abandoned,
		Logger:          c.logger,
	})
	if err := s.negotiate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

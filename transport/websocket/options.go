package websocket

import (
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// Subprotocol is the WebSocket subprotocol of MCP: a client offers it in
// Sec-WebSocket-Protocol and the server selects it.
const Subprotocol = "mcp"

// Defaults of ConnOptions.
const (
	DefaultKeepAlive    = 25 * time.Second
	DefaultPongTimeout  = 20 * time.Second
	DefaultWriteTimeout = 30 * time.Second
)

// ConnOptions configures one WebSocket connection, on either side. The zero
// value gives safe defaults.
type ConnOptions struct {
	// MaxMessageSize bounds a message read; 0 means
	// jsonrpc.DefaultMaxMessageSize (4 MiB). A longer one is skipped and
	// answered with an Invalid Request error, and the connection carries on.
	MaxMessageSize int
	// KeepAlive is how often a ping is sent to the peer; 0 means
	// DefaultKeepAlive, negative means never.
	KeepAlive time.Duration
	// PongTimeout is how long the peer has to answer a ping: a connection
	// with no pong by then is taken as dead and closed (1008, policy
	// violation), which ends its session. 0 means DefaultPongTimeout.
	PongTimeout time.Duration
	// WriteTimeout bounds each write: a peer that stops reading is taken
	// as gone once a write has waited this long, and the connection is
	// closed. 0 means DefaultWriteTimeout; negative means no bound.
	WriteTimeout time.Duration
}

// withDefaults returns a copy of o with the defaults filled in.
func (o ConnOptions) withDefaults() ConnOptions {
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = jsonrpc.DefaultMaxMessageSize
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.PongTimeout <= 0 {
		o.PongTimeout = DefaultPongTimeout
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	return o
}

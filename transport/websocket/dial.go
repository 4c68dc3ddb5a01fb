package websocket

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	ws "github.com/coder/websocket"
)

// DialOptions configures Dial. The zero value gives safe defaults.
type DialOptions struct {
	// ConnOptions configures the connection: message size, keep-alive
	// pings and write timeout.
	ConnOptions
	// HTTPClient sends the upgrade request; nil means http.DefaultClient.
	// Its Transport may add credentials, as an OAuth client's does.
	HTTPClient *http.Client
	// Header is added to the upgrade request, for example an
	// Authorization header with a bearer token.
	Header http.Header
}

// Dial opens a WebSocket connection to an MCP server at rawURL (ws://,
// wss://, or http:// and https:// for the same endpoints), offering the
// subprotocol "mcp", and returns it as a stream for client.Client.Connect.
// ctx bounds the handshake only.
func Dial(ctx context.Context, rawURL string, opts *DialOptions) (*Stream, error) {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("websocket: the server URL %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return nil, fmt.Errorf("websocket: the server URL %q must start with ws://, wss://, http:// or https://", rawURL)
	}
	conn, resp, err := ws.Dial(ctx, rawURL, &ws.DialOptions{HTTPClient: o.HTTPClient, HTTPHeader: o.Header, Subprotocols: []string{Subprotocol}})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &RefusedError{URL: rawURL, StatusCode: resp.StatusCode, Header: resp.Header, Body: readBody(resp)}
		}
		return nil, fmt.Errorf("websocket: connecting to %s: %w", rawURL, err)
	}
	if conn.Subprotocol() != Subprotocol {
		conn.Close(ws.StatusProtocolError, "the server must select the subprotocol mcp")
		return nil, fmt.Errorf("websocket: %s accepted the connection without selecting the subprotocol %q, so it does not speak MCP over WebSocket", rawURL, Subprotocol)
	}
	return newStream(conn, o.ConnOptions, nil, nil), nil
}

// readBody returns the start of a refusal's body, trimmed, for a message.
func readBody(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return strings.TrimSpace(string(b))
}

// RefusedError reports that a server answered the upgrade request with an
// HTTP error instead of switching to WebSocket: 401 when it wants an
// access token (see Header's WWW-Authenticate), 403 for an Origin it does
// not admit, 429 or 503 when it holds too many connections.
type RefusedError struct {
	URL        string
	StatusCode int
	Header     http.Header
	// Body is the start of the response body, which says why.
	Body string
}

// Error implements error.
func (e *RefusedError) Error() string {
	msg := fmt.Sprintf("websocket: %s refused the connection with %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// Defaults of ClientOptions.
const (
	DefaultReconnectDelay = time.Second
	DefaultMaxResumes     = 5
	closeTimeout          = 5 * time.Second
	// getOpenTimeout bounds how long notifications/initialized waits for
	// the server to answer the GET that opens the session's stream.
	getOpenTimeout = 10 * time.Second
)

// ClientOptions configures a Client. The zero value is usable.
type ClientOptions struct {
	// HTTPClient sends the requests; nil means http.DefaultClient. It must
	// not time out whole requests: SSE streams are long-lived.
	HTTPClient *http.Client
	// PrepareRequest, when set, may change every HTTP request before it is
	// sent (to add authorization, for example). An error fails the request.
	PrepareRequest func(*http.Request) error
	// ParamHeaders, when set, names the x-mcp-header bindings of a tool for
	// modern tools/call requests (the Mcp-Param-* headers). When it is nil
	// or returns nil, the Client uses what it learned from the tools/list
	// results it carried.
	ParamHeaders func(tool string) []mcp.ParamHeader
	// ReconnectDelay is how long to wait before reopening the GET stream or
	// resuming a broken stream, unless the server set a retry interval. 0
	// means DefaultReconnectDelay.
	ReconnectDelay time.Duration
	// MaxResumes bounds how many times in a row a broken legacy response
	// stream is resumed before its request fails. 0 means DefaultMaxResumes.
	MaxResumes int
	// MaxMessageSize bounds one incoming message; 0 means
	// jsonrpc.DefaultMaxMessageSize.
	MaxMessageSize int
	// Logger receives the client's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Client is the client side of Streamable HTTP: a jsonrpc.Stream for the
// client package. Each message it writes is a POST; what the server answers
// (a JSON body or an SSE stream) and what arrives on the GET stream is
// returned by Read.
//
// In the legacy era it keeps the Mcp-Session-Id that initialize returned
// and the negotiated MCP-Protocol-Version, and opens the GET stream when it
// sends notifications/initialized: that Write returns once the server has
// answered the GET, so the stream is in place before the first request (a
// server may send its own requests there at once, and drop them when no
// stream is open). It reopens the GET stream when it breaks, and resumes a
// response stream that ends before its response with GET and
// Last-Event-ID after the server's retry interval. When the server reports
// the session gone (404) it replays the handshake with the original
// initialize params and sends the request again, once. In the modern era it mirrors each request's method,
// name, protocol version and x-mcp-header arguments into headers, and turns
// a notifications/cancelled into closing the cancelled request's stream.
//
// A request the server refuses with an HTTP error is answered locally: its
// response carries the server's JSON-RPC error when the body has one, and
// otherwise an error with code CodeHTTPError whose data holds the HTTP
// status (see HTTPStatus).
type Client struct {
	url    string
	opts   ClientOptions
	httpc  *http.Client
	logger *slog.Logger

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	in     chan jsonrpc.Message
	wg     sync.WaitGroup

	mu        sync.Mutex
	sessionID string           // the legacy session, once initialize answered
	version   string           // the negotiated legacy version
	legacy    bool             // initialize was sent: the legacy era
	initReq   *jsonrpc.Request // the initialize request, to replay after a 404
	initID    string           // the initialize request awaiting its answer
	getFor    string           // the session the GET stream runs for
	getReady  chan struct{}    // closed once the server answered getFor's first GET
	calls     map[string]*call // requests awaiting their answer, by ID text
	toolLists map[string]bool  // modern tools/list requests awaiting their answer
	learned   map[string][]mcp.ParamHeader
	closed    bool
	reinit    sync.Mutex // serializes replaying the handshake

	getWait time.Duration // how long openGET waits: getOpenTimeout, shorter in tests
}

// call is a request whose POST is in flight.
type call struct {
	cancel  context.CancelFunc
	modern  bool
	aborted bool // cancelled by the caller: its answer is not wanted
}

// NewClient returns a Client for the MCP endpoint at url. opts may be nil.
func NewClient(url string, opts *ClientOptions) *Client {
	c := &Client{url: url, in: make(chan jsonrpc.Message), getWait: getOpenTimeout}
	if opts != nil {
		c.opts = *opts
	}
	c.httpc = c.opts.HTTPClient
	if c.httpc == nil {
		c.httpc = http.DefaultClient
	}
	if c.opts.ReconnectDelay <= 0 {
		c.opts.ReconnectDelay = DefaultReconnectDelay
	}
	if c.opts.MaxResumes <= 0 {
		c.opts.MaxResumes = DefaultMaxResumes
	}
	if c.opts.MaxMessageSize <= 0 {
		c.opts.MaxMessageSize = jsonrpc.DefaultMaxMessageSize
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.Default()
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// SessionID returns the legacy session's Mcp-Session-Id, or "".
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Read returns the next message from the server. It returns io.EOF once the
// Client is closed.
func (c *Client) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	case <-c.ctx.Done():
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// feed hands a message to Read; it gives up when the Client closes.
func (c *Client) feed(msg jsonrpc.Message) bool {
	select {
	case c.in <- msg:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// Write sends one message. A request returns once its POST is written; its
// answer arrives through Read. A notification or a response returns once
// the server accepted it.
func (c *Client) Write(ctx context.Context, msg jsonrpc.Message) error {
	if c.ctx.Err() != nil {
		return fmt.Errorf("streamable: the client is closed: %w", jsonrpc.ErrClosed)
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsNotification() {
			return c.notify(ctx, m)
		}
		return c.startCall(ctx, m)
	case *jsonrpc.Response:
		return c.respond(ctx, m)
	case jsonrpc.Batch:
		for _, el := range m {
			if req, ok := el.(*jsonrpc.Request); ok && !req.IsNotification() {
				return errors.New("streamable: a batch of requests cannot be sent over HTTP; send each request on its own")
			}
		}
		return c.postAccepted(ctx, m, nil, true)
	}
	return fmt.Errorf("streamable: cannot send %T", msg)
}

// notify sends a notification. notifications/cancelled for a modern
// request closes that request's stream instead, which is how HTTP cancels
// in the modern era; notifications/initialized opens the GET stream and
// returns once the server has answered the GET.
func (c *Client) notify(ctx context.Context, n *jsonrpc.Request) error {
	if n.Method == "notifications/cancelled" {
		if id, ok := cancelledID(n.Params); ok && c.abort(id) {
			return nil
		}
		if rp := scanParams(n.Method, n.Params); isModernRequest(&rp) {
			// The request's stream has closed already, which is the
			// modern cancel: its call gave up while its POST was sent.
			return nil
		}
	}
	if err := c.postAccepted(ctx, n, n, true); err != nil {
		return err
	}
	if n.Method == "notifications/cancelled" {
		if id, ok := cancelledID(n.Params); ok {
			c.release(id)
		}
	}
	if n.Method == "notifications/initialized" {
		return c.openGET(ctx)
	}
	return nil
}

// respond sends the answer to a server's request. Without a legacy session
// there is nobody to send it to (modern servers make no requests), and it
// is dropped.
func (c *Client) respond(ctx context.Context, r *jsonrpc.Response) error {
	c.mu.Lock()
	legacy := c.legacy
	c.mu.Unlock()
	if !legacy {
		c.logger.Debug("streamable: dropping a response: the server made no request in the modern era", "id", r.ID)
		return nil
	}
	return c.postAccepted(ctx, r, nil, true)
}

// abort marks a request cancelled by the caller, so that no answer is
// delivered for it, and closes the POST of a modern request. It reports
// whether it closed one: a legacy request is cancelled by sending the
// notification, after which release closes the request's stream.
func (c *Client) abort(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.calls[id.Raw()]
	if cl == nil {
		return false
	}
	cl.aborted = true
	if !cl.modern {
		return false
	}
	cl.cancel()
	return true
}

// release closes the POST stream of a legacy request the caller
// cancelled, once the server has been sent notifications/cancelled for
// it: nothing more on the stream is wanted, and a server that never ends
// the stream would otherwise hold its connection for good.
func (c *Client) release(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[id.Raw()]; cl != nil && cl.aborted {
		cl.cancel()
	}
}

// Close ends the legacy session with DELETE (best effort, bounded), stops
// every request and stream, and makes Read return io.EOF.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	sid, v := c.sessionID, c.version
	c.mu.Unlock()
	var err error
	if sid != "" {
		err = c.deleteSession(sid, v)
	}
	c.cancel()
	c.wg.Wait()
	return err
}

// deleteSession asks the server to end the session.
func (c *Client) deleteSession(sid, version string) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set(headerSessionID, sid)
	if version != "" {
		req.Header.Set(headerProtocolVersion, version)
	}
	resp, err := c.do(req)
	if err != nil {
		return fmt.Errorf("streamable: ending the session: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	switch {
	case resp.StatusCode < 300, resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusMethodNotAllowed:
		return nil // ended, already gone, or the server keeps sessions until they expire
	}
	return fmt.Errorf("streamable: ending the session: %w", newHTTPError(resp, nil))
}

// do sends an HTTP request after PrepareRequest.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	if c.opts.PrepareRequest != nil {
		if err := c.opts.PrepareRequest(req); err != nil {
			return nil, fmt.Errorf("preparing the request: %w", err)
		}
	}
	return c.httpc.Do(req)
}

// isModernRequest reports whether a request's _meta names a modern version.
func isModernRequest(rp *routeParams) bool {
	return rp.hasVersion && mcp.IsModern(rp.version)
}

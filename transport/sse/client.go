package sse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
)

// ClientOptions configures a Client. The zero value is usable.
type ClientOptions struct {
	// HTTPClient sends the requests; nil means http.DefaultClient. It must
	// not time out whole requests: the event stream is long-lived.
	HTTPClient *http.Client
	// PrepareRequest, when set, may change every HTTP request before it is
	// sent (to add authorization, for example). An error fails the request.
	PrepareRequest func(*http.Request) error
	// MaxMessageSize bounds one incoming message; 0 means
	// jsonrpc.DefaultMaxMessageSize.
	MaxMessageSize int
	// Logger receives the client's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Client is the client side of the HTTP+SSE transport of protocol version
// 2024-11-05, a jsonrpc.Stream: Dial opens the event stream, each Write is
// a POST to the endpoint the server named, and Read returns the server's
// "message" events. When the event stream ends, Read returns io.EOF (or
// the stream's error) and the session is over.
type Client struct {
	opts     ClientOptions
	httpc    *http.Client
	endpoint string // where to POST

	ctx    context.Context
	cancel context.CancelFunc
	in     chan jsonrpc.Message
	done   chan struct{} // closed when the event stream has ended
	err    error         // why it ended; set before done is closed
	once   sync.Once
}

// StatusError reports a message the server refused with an HTTP error.
type StatusError struct {
	StatusCode int    // the HTTP status code
	Status     string // the HTTP status line
	Body       string // the start of the response body
}

// Error describes the refusal.
func (e *StatusError) Error() string {
	if e.Body == "" {
		return "HTTP " + e.Status
	}
	return fmt.Sprintf("HTTP %s: %s", e.Status, e.Body)
}

// Dial opens the event stream at url and waits for its endpoint event. ctx
// bounds only the wait for that event. opts may be nil.
func Dial(ctx context.Context, rawURL string, opts *ClientOptions) (*Client, error) {
	c := &Client{in: make(chan jsonrpc.Message), done: make(chan struct{})}
	if opts != nil {
		c.opts = *opts
	}
	c.httpc = c.opts.HTTPClient
	if c.httpc == nil {
		c.httpc = http.DefaultClient
	}
	if c.opts.MaxMessageSize <= 0 {
		c.opts.MaxMessageSize = jsonrpc.DefaultMaxMessageSize
	}
	if c.opts.Logger == nil {
		c.opts.Logger = slog.Default()
	}
	base, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("sse: %q is not a URL: %w", rawURL, err)
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		c.cancel()
		return nil, fmt.Errorf("sse: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	stop := context.AfterFunc(ctx, c.cancel) // ctx bounds the wait for the endpoint
	resp, err := c.do(req)
	if err != nil {
		stop()
		c.cancel()
		return nil, fmt.Errorf("sse: opening the event stream at %s: %w", rawURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		stop()
		c.cancel()
		return nil, fmt.Errorf("sse: opening the event stream at %s: %w", rawURL, statusError(resp))
	}
	r := NewReader(resp.Body, c.opts.MaxMessageSize)
	ev, err := r.Next()
	switch {
	case !stop():
		err = fmt.Errorf("waiting for the endpoint event: %w", context.Cause(ctx))
	case err != nil:
		err = fmt.Errorf("waiting for the endpoint event: %w", err)
	case ev.Name != "endpoint":
		err = fmt.Errorf("the first event is %q, not \"endpoint\": the server does not speak the HTTP+SSE transport", ev.Name)
	}
	if err == nil {
		c.endpoint, err = sameOrigin(base, string(ev.Data))
	}
	if err != nil {
		resp.Body.Close()
		c.cancel()
		return nil, fmt.Errorf("sse: %s: %w", rawURL, err)
	}
	go c.readLoop(resp.Body, r)
	return c, nil
}

// sameOrigin resolves the endpoint against the stream's URL and refuses an
// endpoint on another origin, where a server could send the session's
// messages.
func sameOrigin(base *url.URL, endpoint string) (string, error) {
	u, err := base.Parse(strings.TrimSpace(endpoint))
	if err != nil {
		return "", fmt.Errorf("the endpoint event %q is not a URL: %w", endpoint, err)
	}
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return "", fmt.Errorf("the endpoint %s is not on the origin of the event stream (%s://%s)", u, base.Scheme, base.Host)
	}
	return u.String(), nil
}

// readLoop hands the stream's message events to Read until it ends.
func (c *Client) readLoop(body io.ReadCloser, r *Reader) {
	defer body.Close()
	var err error
	for {
		var ev Event
		if ev, err = r.Next(); err != nil {
			break
		}
		if ev.Name != "" && ev.Name != "message" {
			continue
		}
		msg, derr := jsonrpc.DecodeMessage(bytes.Clone(ev.Data))
		if derr != nil {
			c.opts.Logger.Warn("sse: skipping an invalid message from the server", "error", derr)
			continue
		}
		select {
		case c.in <- msg:
		case <-c.ctx.Done():
			err = c.ctx.Err()
		}
		if c.ctx.Err() != nil {
			break
		}
	}
	c.finish(err)
}

// finish records why the stream ended.
func (c *Client) finish(err error) {
	c.once.Do(func() {
		if errors.Is(err, io.EOF) || c.ctx.Err() != nil {
			err = io.EOF
		}
		c.err = err
		close(c.done)
	})
}

// Read returns the next message from the server; io.EOF once the event
// stream has ended cleanly or the Client is closed.
func (c *Client) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	case <-c.done:
		return nil, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write POSTs one message to the session's endpoint.
func (c *Client) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.done:
		return fmt.Errorf("sse: the event stream has ended: %w", jsonrpc.ErrClosed)
	default:
	}
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.do(req)
	if err != nil {
		return fmt.Errorf("sse: posting a message: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("sse: the server refused a message: %w", statusError(resp))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	return nil
}

// Close ends the event stream, which ends the session; Read returns io.EOF.
func (c *Client) Close() error {
	c.cancel()
	c.finish(nil)
	return nil
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

// statusError reads an error response.
func statusError(resp *http.Response) *StatusError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, Body: strings.TrimSpace(string(b))}
}

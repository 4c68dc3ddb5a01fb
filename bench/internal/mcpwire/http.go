package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Streamable HTTP header names.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "MCP-Protocol-Version"
	// Modern requests mirror their routing in headers (SEP-2243).
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// maxBody bounds one HTTP answer body.
const maxBody = 4 << 20

// NewHTTPClient returns a client that keeps up to inFlight connections to one
// server open, so a run at that concurrency never reconnects.
func NewHTTPClient(inFlight int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        inFlight,
		MaxIdleConnsPerHost: inFlight,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}}
}

// HTTPSession is an initialized legacy session over Streamable HTTP: every
// message is a POST, answered with JSON or with an SSE stream that carries
// the answer. It is safe for concurrent use.
type HTTPSession struct {
	client    *http.Client
	url       string
	sessionID string // empty when the server issued none (a stateless server)
	initDone  bool   // initialize answered: later messages carry the version header
	modern    bool   // requests of ModernVersion: no session, routing headers
	nextID    atomic.Int64
}

// route is what a modern POST mirrors in its headers: the method, and the
// params member that names its target (a tool's name, a task's id), if any.
type route struct {
	method, name string
}

// DialHTTP initializes a session with the server at url (its /mcp endpoint)
// and returns once notifications/initialized has been accepted.
func DialHTTP(ctx context.Context, client *http.Client, url string) (*HTTPSession, error) {
	s := &HTTPSession{client: client, url: url}
	data, err := encodeRequest(s.nextID.Add(1), "initialize", json.RawMessage(initializeParams))
	if err != nil {
		return nil, err
	}
	env, header, err := s.post(ctx, data, 1, route{method: "initialize"})
	if err != nil {
		return nil, err
	}
	result, err := resultOf(env, "initialize")
	if err != nil {
		return nil, err
	}
	if err := checkInitialize(result); err != nil {
		return nil, err
	}
	s.sessionID = header.Get(headerSession)
	s.initDone = true
	if _, _, err := s.post(ctx, []byte(initializedNotification), 0, route{method: "notifications/initialized"}); err != nil {
		return nil, err
	}
	return s, nil
}

// NewModernHTTP returns a client of the server at url (its /mcp endpoint)
// that sends requests of ModernVersion: no handshake and no session; each
// POST carries MCP-Protocol-Version, Mcp-Method and, when CallNamed is given
// a name, Mcp-Name. The caller puts the _meta of each request in its params.
func NewModernHTTP(client *http.Client, url string) *HTTPSession {
	return &HTTPSession{client: client, url: url, modern: true}
}

// ID returns the Mcp-Session-Id the server issued, or "" if it issued none.
func (s *HTTPSession) ID() string { return s.sessionID }

// Echo calls the echo tool with text. It returns nil only when the answer is
// a successful result whose only content is a text block equal to text.
func (s *HTTPSession) Echo(ctx context.Context, text string) error {
	result, err := s.Call(ctx, "tools/call", echoParams{Name: ToolName, Arguments: echoArgs{Text: text}})
	if err != nil {
		return err
	}
	return checkEcho(result, text)
}

// Call sends one request, each in its own POST, and returns its result; an
// error answer is an error.
func (s *HTTPSession) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.CallNamed(ctx, method, "", params)
}

// CallNamed is Call for a request whose params name its target (name: a
// tool's name, a task's id), which a modern request mirrors in Mcp-Name.
func (s *HTTPSession) CallNamed(ctx context.Context, method, name string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	data, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	env, _, err := s.post(ctx, data, id, route{method: method, name: name})
	if err != nil {
		return nil, err
	}
	return resultOf(env, method)
}

// post sends one message routed as r. For a request (id > 0) it returns the
// answer with that id; for a notification (id 0) it requires 202 Accepted.
func (s *HTTPSession) post(ctx context.Context, body []byte, id int64, r route) (envelope, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return envelope{}, nil, fmt.Errorf("build POST to %s: %w", s.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sessionID != "" {
		req.Header.Set(headerSession, s.sessionID)
	}
	switch {
	case s.modern:
		req.Header.Set(headerProtocol, ModernVersion)
		req.Header.Set(headerMethod, r.method)
		if r.name != "" {
			req.Header.Set(headerName, r.name)
		}
	case s.initDone:
		req.Header.Set(headerProtocol, ProtocolVersion)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return envelope{}, nil, fmt.Errorf("POST %s: %w", s.url, err)
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
	}()

	if id == 0 {
		if resp.StatusCode != http.StatusAccepted {
			return envelope{}, nil, statusError(resp, "a notification", http.StatusAccepted)
		}
		return envelope{}, nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return envelope{}, nil, statusError(resp, "a request", http.StatusOK)
	}
	want := strconv.FormatInt(id, 10)
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		if err != nil {
			return envelope{}, nil, fmt.Errorf("read the answer to id %s: %w", want, err)
		}
		env, err := decodeEnvelope(data)
		if err != nil {
			return envelope{}, nil, err
		}
		if string(env.ID) != want {
			return envelope{}, nil, fmt.Errorf("the server answered request id %s with id %s", want, env.ID)
		}
		return env, resp.Header, nil
	case "text/event-stream":
		env, err := readSSE(resp.Body, want)
		return env, resp.Header, err
	default:
		return envelope{}, nil, fmt.Errorf("the server answered with Content-Type %q; Streamable HTTP allows application/json or text/event-stream", resp.Header.Get("Content-Type"))
	}
}

// statusError describes an unexpected HTTP status, quoting the body's start.
func statusError(resp *http.Response, what string, want int) error {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	return fmt.Errorf("the server answered %s with HTTP %s, want %d: %q", what, resp.Status, want, head)
}

package streamable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
)

// startCall POSTs a request and returns once it is written; a goroutine
// reads the answer and hands it to Read.
func (c *Client) startCall(ctx context.Context, req *jsonrpc.Request) error {
	body, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return fmt.Errorf("streamable: %w", err)
	}
	rp := scanParams(req.Method, req.Params)
	modern := isModernRequest(&rp)
	callCtx, cancel := context.WithCancel(c.ctx)
	cl := &call{cancel: cancel, modern: modern}
	id := req.ID.Raw()

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return fmt.Errorf("streamable: the client is closed: %w", jsonrpc.ErrClosed)
	}
	if c.calls[id] != nil {
		c.mu.Unlock()
		cancel()
		return fmt.Errorf("streamable: request ID %s is already in flight", req.ID)
	}
	if c.calls == nil {
		c.calls = make(map[string]*call)
	}
	c.calls[id] = cl
	switch {
	case req.Method == mcp.MethodInitialize:
		c.legacy, c.initReq, c.initID = true, req, id
	case modern && req.Method == mcp.MethodToolsList:
		if c.toolLists == nil {
			c.toolLists = make(map[string]bool)
		}
		c.toolLists[id] = true
	}
	c.wg.Add(1)
	c.mu.Unlock()

	written := make(chan error, 1)
	go c.roundTrip(callCtx, req, body, &rp, written)
	select {
	case err := <-written:
		return err
	case <-ctx.Done():
		cancel()
		return ctx.Err()
	}
}

// roundTrip performs a request's POST and delivers its answer. written
// receives nil once the request is on the wire, or the error that kept it
// from getting there (then nothing else is delivered).
func (c *Client) roundTrip(ctx context.Context, req *jsonrpc.Request, body []byte, rp *routeParams, written chan<- error) {
	defer c.wg.Done()
	defer c.forget(req.ID)
	var once sync.Once
	wrote := func(err error) bool {
		first := false
		once.Do(func() { written <- err; first = true })
		return first
	}
	for attempt := 0; ; attempt++ {
		sid, version := c.session()
		resp, err := c.post(ctx, body, func(h http.Header) { c.setHeaders(h, req.Method, rp, sid, version) }, wrote)
		if err != nil {
			if !wrote(fmt.Errorf("streamable: sending %s: %w", req.Method, err)) {
				c.answerError(ctx, req.ID, transportError(0, "the HTTP exchange for %s failed: %v", req.Method, err))
			}
			return
		}
		wrote(nil)
		if resp.StatusCode == http.StatusNotFound && sid != "" && attempt == 0 {
			resp.Body.Close()
			if c.renewSession(ctx, sid) {
				continue
			}
			c.answerError(ctx, req.ID, jsonrpc.NewError(CodeSessionNotFound,
				"the server ended session %s, and starting a new one failed; reconnect", sid))
			return
		}
		c.answer(ctx, req, resp)
		return
	}
}

// answer reads the server's answer to a request and delivers it.
func (c *Client) answer(ctx context.Context, req *jsonrpc.Request, resp *http.Response) {
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		c.answerError(ctx, req.ID, transportError(resp.StatusCode,
			"the server accepted %s without answering it (HTTP %s)", req.Method, resp.Status))
	case resp.StatusCode >= 300:
		c.answerError(ctx, req.ID, newHTTPError(resp, nil).rpcError())
	case mt == mediaJSON:
		c.answerJSON(ctx, req, resp)
	case mt == mediaSSE:
		c.answerSSE(ctx, req, resp)
	default:
		c.answerError(ctx, req.ID, transportError(resp.StatusCode,
			"the server answered %s with Content-Type %q; expected %s or %s", req.Method, resp.Header.Get("Content-Type"), mediaJSON, mediaSSE))
	}
}

// answerJSON delivers a JSON answer: one message or a batch.
func (c *Client) answerJSON(ctx context.Context, req *jsonrpc.Request, resp *http.Response) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxMessageSize)+1))
	switch {
	case err != nil:
		c.answerError(ctx, req.ID, transportError(resp.StatusCode, "reading the answer to %s: %v", req.Method, err))
		return
	case len(data) > c.opts.MaxMessageSize:
		c.answerError(ctx, req.ID, transportError(resp.StatusCode, "the answer to %s is larger than %d bytes", req.Method, c.opts.MaxMessageSize))
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		c.answerError(ctx, req.ID, transportError(resp.StatusCode, "the answer to %s is not valid JSON-RPC: %v", req.Method, err))
		return
	}
	if !c.receive(msg, req.ID, resp) && ctx.Err() == nil {
		c.answerError(ctx, req.ID, transportError(resp.StatusCode, "the server's answer did not contain the response to %s", req.Method))
	}
}

// answerSSE reads an SSE answer until the response arrives, resuming a
// legacy stream that breaks before it.
func (c *Client) answerSSE(ctx context.Context, req *jsonrpc.Request, resp *http.Response) {
	answered, lastID, retry := c.consume(resp, req.ID)
	if answered || ctx.Err() != nil {
		return
	}
	sid, _ := c.session()
	for n := 0; n < c.opts.MaxResumes && sid != "" && lastID != ""; n++ {
		if !c.sleep(ctx, c.delay(retry, 0)) {
			return
		}
		get, err := c.get(ctx, sid, lastID)
		if err != nil {
			continue
		}
		if get.StatusCode == http.StatusConflict {
			// The server has not yet noticed that the old connection broke.
			get.Body.Close()
			continue
		}
		if get.StatusCode != http.StatusOK {
			c.answerError(ctx, req.ID, newHTTPError(get, nil).rpcError())
			get.Body.Close()
			return
		}
		var l string
		var rt int
		answered, l, rt = c.consume(get, req.ID)
		get.Body.Close()
		if answered || ctx.Err() != nil {
			return
		}
		if l != "" {
			lastID = l
		}
		if rt > 0 {
			retry = rt
		}
	}
	c.answerError(ctx, req.ID, transportError(http.StatusOK, "the server's stream ended before the response to %s", req.Method))
}

// consume reads an SSE response and hands its messages to Read. It stops
// after the response to want (when want is valid) and reports whether that
// came, with the stream's last event ID and retry interval.
func (c *Client) consume(resp *http.Response, want jsonrpc.ID) (answered bool, lastID string, retry int) {
	r := sse.NewReader(resp.Body, c.opts.MaxMessageSize)
	for {
		ev, err := r.Next()
		if err != nil {
			return false, r.LastID(), r.Retry()
		}
		if len(ev.Data) == 0 {
			continue // a priming event
		}
		msg, err := jsonrpc.DecodeMessage(bytes.Clone(ev.Data))
		if err != nil {
			c.logger.Warn("streamable: skipping an invalid message from the server", "event", ev.ID, "error", err)
			continue
		}
		if c.receive(msg, want, resp) && want.IsValid() {
			return true, r.LastID(), r.Retry()
		}
		if c.ctx.Err() != nil {
			return false, r.LastID(), r.Retry()
		}
	}
}

// receive hands a message (or the elements of a batch) to Read, noting
// what the Client needs from answers first. It reports whether the
// response to want was among them.
func (c *Client) receive(msg jsonrpc.Message, want jsonrpc.ID, resp *http.Response) bool {
	msgs := []jsonrpc.Message{msg}
	if b, ok := msg.(jsonrpc.Batch); ok {
		msgs = b
	}
	found := false
	for _, m := range msgs {
		if de, ok := m.(*jsonrpc.DecodeError); ok {
			c.logger.Warn("streamable: skipping an invalid message in a batch from the server", "error", de)
			continue
		}
		if r, ok := m.(*jsonrpc.Response); ok {
			c.noteAnswer(r, resp)
			if want.IsValid() && r.ID.Raw() == want.Raw() {
				found = true
				if c.wasAborted(r.ID) {
					continue
				}
			}
		}
		if !c.feed(m) {
			return found
		}
	}
	return found
}

// noteAnswer records what an answer tells the Client: the session and
// version an initialize established, the header bindings of tools listed.
func (c *Client) noteAnswer(r *jsonrpc.Response, resp *http.Response) {
	id := r.ID.Raw()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.initID != "" && id == c.initID {
		c.initID = ""
		if r.Error == nil {
			c.sessionID = resp.Header.Get(headerSessionID)
			c.version = resultVersion(r.Result)
		}
	}
	if c.toolLists[id] {
		delete(c.toolLists, id)
		if r.Error == nil && bytes.Contains(r.Result, []byte("x-mcp-header")) {
			c.learnLocked(r.Result)
		}
	}
}

// resultVersion returns the protocolVersion of an initialize result.
func resultVersion(result []byte) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(result, &r)
	return r.ProtocolVersion
}

// answerError delivers an error as the response to id, unless the request
// was aborted or the Client closed (nobody waits for it then).
func (c *Client) answerError(ctx context.Context, id jsonrpc.ID, e *jsonrpc.Error) {
	if ctx.Err() != nil || c.wasAborted(id) {
		return
	}
	c.feed(&jsonrpc.Response{ID: id, Error: e})
}

// wasAborted reports whether the caller cancelled the request with id.
func (c *Client) wasAborted(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.calls[id.Raw()]
	return cl != nil && cl.aborted
}

// forget removes a finished request.
func (c *Client) forget(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[id.Raw()]; cl != nil {
		cl.cancel()
		delete(c.calls, id.Raw())
	}
	delete(c.toolLists, id.Raw())
}

// postAccepted POSTs a notification, a response or a batch of them and
// waits for the server to accept it (2xx). A legacy session the server
// reports gone (404) is renewed and the message sent again, once; with
// renew false it is not (renewSession itself sends that way). n is the
// notification, when msg is one, for its headers.
func (c *Client) postAccepted(ctx context.Context, msg jsonrpc.Message, n *jsonrpc.Request, renew bool) error {
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("streamable: %w", err)
	}
	var rp routeParams
	method := ""
	if n != nil {
		rp, method = scanParams(n.Method, n.Params), n.Method
	}
	for attempt := 0; ; attempt++ {
		sid, version := c.session()
		resp, err := c.post(ctx, body, func(h http.Header) { c.setHeaders(h, method, &rp, sid, version) }, nil)
		if err != nil {
			return fmt.Errorf("streamable: sending %s: %w", describe(msg), err)
		}
		if resp.StatusCode == http.StatusNotFound && sid != "" && renew && attempt == 0 {
			resp.Body.Close()
			if !c.renewSession(ctx, sid) {
				return fmt.Errorf("streamable: sending %s: the server ended session %s, and starting a new one failed; reconnect: %w",
					describe(msg), sid, &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status})
			}
			continue
		}
		return accepted(resp, msg)
	}
}

// accepted consumes the answer to a POSTed notification or response: nil
// for 2xx, an *HTTPError otherwise.
func accepted(resp *http.Response, msg jsonrpc.Message) error {
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("streamable: the server refused %s: %w", describe(msg), newHTTPError(resp, nil))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return nil
}

// describe names a message for errors.
func describe(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return m.Method
	case *jsonrpc.Response:
		return "the response to " + m.ID.String()
	}
	return "a batch"
}

// post sends one POST with the body and the headers set by headers. wrote,
// when not nil, is told when the request is on the wire.
func (c *Client) post(ctx context.Context, body []byte, headers func(http.Header), wrote func(error) bool) (*http.Response, error) {
	if wrote != nil {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(info httptrace.WroteRequestInfo) {
				if info.Err == nil {
					wrote(nil)
				}
			},
		})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mediaJSON)
	req.Header.Set("Accept", mediaJSON+", "+mediaSSE)
	headers(req.Header)
	resp, err := c.do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) && c.ctx.Err() != nil {
			return nil, fmt.Errorf("the client is closed: %w", jsonrpc.ErrClosed)
		}
		return nil, err
	}
	return resp, nil
}

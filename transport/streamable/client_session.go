package streamable

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/millis"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
)

// maxReconnectDelay caps the backoff between failed attempts to open the
// GET stream.
const maxReconnectDelay = 30 * time.Second

// reinitSeq numbers the private initialize requests of session renewals.
var reinitSeq atomic.Int64

// session returns the legacy session ID and negotiated version.
func (c *Client) session() (sid, version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID, c.version
}

// setHeaders sets the era's headers of a POST carrying method (empty for a
// response or batch) with params rp: the modern mirrors when the params
// carry a modern _meta, the legacy session and version otherwise.
func (c *Client) setHeaders(h http.Header, method string, rp *routeParams, sid, version string) {
	if isModernRequest(rp) {
		h.Set(headerProtocolVersion, rp.version)
		h.Set(headerMethod, method)
		if nameMember(method) != "" && rp.hasName {
			h.Set(headerName, EncodeHeaderValue(rp.name))
		}
		if method == mcp.MethodToolsCall && rp.hasName {
			c.setParamHeaders(h, rp)
		}
		return
	}
	if sid != "" {
		h.Set(headerSessionID, sid)
	}
	if version != "" {
		h.Set(headerProtocolVersion, version)
	}
}

// setParamHeaders mirrors the x-mcp-header arguments of a tools/call.
func (c *Client) setParamHeaders(h http.Header, rp *routeParams) {
	var bindings []mcp.ParamHeader
	if c.opts.ParamHeaders != nil {
		bindings = c.opts.ParamHeaders(rp.name)
	}
	if bindings == nil {
		c.mu.Lock()
		bindings = c.learned[rp.name]
		c.mu.Unlock()
	}
	for _, b := range bindings {
		v, err := argumentAt(rp.arguments, b.Path)
		if err != nil {
			continue
		}
		text, err := headerText(v)
		if err != nil {
			c.logger.Warn("streamable: cannot mirror a tool argument into its header", "tool", rp.name, "header", b.Header(), "error", err)
			continue
		}
		h.Set(b.Header(), EncodeHeaderValue(text))
	}
}

// learnLocked records the x-mcp-header bindings of the tools in a
// tools/list result. A tool with invalid annotations is skipped: the spec
// has clients exclude it.
func (c *Client) learnLocked(result []byte) {
	var r struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema jsontext.Value `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return
	}
	for _, t := range r.Tools {
		bindings, err := mcp.ParamHeaders([]byte(t.InputSchema))
		if err != nil {
			c.logger.Warn("streamable: a listed tool has invalid x-mcp-header annotations; exclude it", "tool", t.Name, "error", err)
			continue
		}
		if c.learned == nil {
			c.learned = make(map[string][]mcp.ParamHeader)
		}
		c.learned[t.Name] = bindings
	}
}

// renewSession starts a new legacy session after the server reported
// session sid gone: it replays initialize with the original params (under
// a private ID, so the answer is not handed to Read), sends
// notifications/initialized and reopens the GET stream. It reports whether
// a session (this one or one another request renewed meanwhile) exists.
func (c *Client) renewSession(ctx context.Context, sid string) bool {
	c.reinit.Lock()
	defer c.reinit.Unlock()
	c.mu.Lock()
	cur, initReq, getWanted := c.sessionID, c.initReq, c.getFor != ""
	c.mu.Unlock()
	if cur != sid {
		return cur != ""
	}
	if initReq == nil {
		return false
	}
	c.logger.Info("streamable: the server ended the session; starting a new one", "session", sid)
	req := &jsonrpc.Request{ID: jsonrpc.StringID("weft-reinitialize-" + strconv.FormatInt(reinitSeq.Add(1), 10)),
		Method: mcp.MethodInitialize, Params: initReq.Params}
	body, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return false
	}
	resp, err := c.post(ctx, body, func(http.Header) {}, nil)
	if err != nil {
		c.logger.Warn("streamable: could not start a new session", "error", err)
		return false
	}
	newSID := resp.Header.Get(headerSessionID)
	result, ok := c.privateAnswer(resp, req.ID)
	resp.Body.Close()
	if !ok || newSID == "" {
		c.logger.Warn("streamable: the server did not start a new session", "status", resp.Status)
		return false
	}
	version := resultVersion(result)
	c.mu.Lock()
	c.sessionID, c.version = newSID, version
	c.mu.Unlock()
	n := &jsonrpc.Request{Method: "notifications/initialized"}
	if err := c.postAccepted(ctx, n, n, false); err != nil {
		c.logger.Warn("streamable: could not complete the new session's handshake", "error", err)
		return false
	}
	if getWanted {
		// As for the first session, the GET stream is in place before the
		// request is sent again.
		if err := c.openGET(ctx); err != nil {
			return false // the request's context ended: nobody waits for it
		}
	}
	return true
}

// privateAnswer reads the successful result of a request the Client made
// itself; nothing is handed to Read.
func (c *Client) privateAnswer(resp *http.Response, id jsonrpc.ID) ([]byte, bool) {
	if resp.StatusCode != http.StatusOK {
		return nil, false
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var found *jsonrpc.Response
	check := func(m jsonrpc.Message) {
		if r, ok := m.(*jsonrpc.Response); ok && r.ID.Raw() == id.Raw() {
			found = r
		}
	}
	switch mt {
	case mediaJSON:
		data, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxMessageSize)))
		if err != nil {
			return nil, false
		}
		if msg, err := jsonrpc.DecodeMessage(data); err == nil {
			check(msg)
		}
	case mediaSSE:
		r := sse.NewReader(resp.Body, c.opts.MaxMessageSize)
		for found == nil {
			ev, err := r.Next()
			if err != nil {
				break
			}
			if msg, err := jsonrpc.DecodeMessage(bytes.Clone(ev.Data)); err == nil {
				check(msg)
			}
		}
	}
	if found == nil || found.Error != nil {
		return nil, false
	}
	return found.Result, true
}

// openGET opens the GET stream of the current session, unless it runs,
// and waits until the server has answered the stream's first GET (the
// stream is then being read, or the server refused it) or the GET failed.
// A server that holds its answer is waited for getOpenTimeout at most; the
// stream keeps opening in the background. It returns ctx's error if ctx
// ends first.
func (c *Client) openGET(ctx context.Context) error {
	ready := c.startGET()
	if ready == nil {
		return nil
	}
	t := time.NewTimer(c.getWait)
	defer t.Stop()
	select {
	case <-ready:
	case <-t.C:
		c.logger.Warn("streamable: the server has not answered the GET that opens the session's stream; going on without waiting for it", "after", c.getWait)
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// startGET opens the GET stream of the current session, unless it runs,
// and returns a channel closed once the server has answered the stream's
// first GET, or nil when there is no session to open a stream for.
func (c *Client) startGET() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.sessionID == "" {
		return nil
	}
	if c.getFor != c.sessionID {
		c.getFor, c.getReady = c.sessionID, make(chan struct{})
		c.wg.Add(1)
		go c.listenGET(c.sessionID, c.getReady)
	}
	return c.getReady
}

// listenGET keeps the GET stream of session sid open, handing its
// messages to Read and resuming with Last-Event-ID, until the Client
// closes, the session changes, or the server says it offers no GET stream.
// It closes ready once the first GET has been answered (or has failed), or
// when it stops before that.
func (c *Client) listenGET(sid string, ready chan<- struct{}) {
	defer c.wg.Done()
	answered := sync.OnceFunc(func() { close(ready) })
	defer answered()
	lastID, retry, failures := "", 0, 0
	for {
		if cur, _ := c.session(); cur != sid || c.ctx.Err() != nil {
			return
		}
		resp, err := c.get(c.ctx, sid, lastID)
		answered()
		if err == nil {
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			switch {
			case resp.StatusCode == http.StatusOK && mt == mediaSSE:
				failures = 0
				_, l, rt := c.consume(resp, jsonrpc.ID{})
				if l != "" {
					lastID = l
				}
				if rt > 0 {
					retry = rt
				}
			case resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusNotFound:
				// No GET stream here, or the session is gone (the next
				// POST renews it and reopens the stream).
				resp.Body.Close()
				return
			default:
				failures++
			}
			resp.Body.Close()
		} else {
			failures++
		}
		if !c.sleep(c.ctx, c.delay(retry, failures)) {
			return
		}
	}
}

// get opens a GET stream of session sid, resuming after lastID if set.
func (c *Client) get(ctx context.Context, sid, lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", mediaSSE)
	req.Header.Set(headerSessionID, sid)
	if _, v := c.session(); v != "" {
		req.Header.Set(headerProtocolVersion, v)
	}
	if lastID != "" {
		req.Header.Set(headerLastEventID, lastID)
	}
	return c.do(req)
}

// delay returns how long to wait before reconnecting: the server's retry
// interval (milliseconds) or ReconnectDelay, doubled for each failure in
// a row, up to maxReconnectDelay.
func (c *Client) delay(retryMs, failures int) time.Duration {
	d := c.opts.ReconnectDelay
	if retryMs > 0 {
		d = millis.Duration(int64(retryMs))
	}
	for i := 1; i < failures && d < maxReconnectDelay; i++ {
		d *= 2
	}
	return min(d, maxReconnectDelay)
}

// sleep waits for d; it returns false if ctx ended first.
func (c *Client) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

package client

import (
	"context"
	stdjson "encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// testTimeout bounds every wait of these tests.
const testTimeout = 10 * time.Second

// handlerFunc answers one request the fake server receives.
type handlerFunc func(ctx context.Context, req *jsonrpc.Request) (any, error)

// peer is a fake MCP server: a raw jsonrpc.Conn whose answers each test
// scripts, recording every message it receives in arrival order.
type peer struct {
	t        *testing.T
	conn     *jsonrpc.Conn
	handlers map[string]handlerFunc

	mu       sync.Mutex
	received []*jsonrpc.Request // every request and notification, in arrival order
	notes    chan *jsonrpc.Request
}

// arrivals is the fake server's end of the pipe: it records every request
// and notification as the Conn reads it, so in the order they arrived,
// however late the handler of each runs (or whether it runs at all).
type arrivals struct {
	jsonrpc.Stream
	p *peer
}

func (a arrivals) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := a.Stream.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok {
		a.p.mu.Lock()
		a.p.received = append(a.p.received, req)
		a.p.mu.Unlock()
	}
	return msg, err
}

// newPeer starts a fake server and returns the client's end of the pipe.
func newPeer(t *testing.T, handlers map[string]handlerFunc) (*peer, jsonrpc.Stream) {
	t.Helper()
	clientEnd, serverEnd := transport.Pipe()
	p := &peer{t: t, handlers: handlers, notes: make(chan *jsonrpc.Request, 256)}
	p.conn = jsonrpc.NewConn(arrivals{serverEnd, p}, jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(p.handle),
		// Like a legacy server, cancel the requests it gives up on.
		OnCallAbandoned: func(id jsonrpc.ID, _ string, _ error) {
			p.conn.Notify(context.Background(), mcp.NotificationCancelled, &mcp.CancelledNotificationParams{RequestID: id})
		},
	})
	t.Cleanup(func() { p.conn.Close() })
	return p, clientEnd
}

func (p *peer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		var cp mcp.CancelledNotificationParams
		if req.Method == mcp.NotificationCancelled && json.Unmarshal(req.Params, &cp) == nil {
			p.conn.CancelInbound(cp.RequestID)
		}
		p.notes <- req
		return nil, nil
	}
	h := p.handlers[req.Method]
	if h == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method %q not found", req.Method)
	}
	return h(ctx, req)
}

// requests returns the requests for method received so far.
func (p *peer) requests(method string) []*jsonrpc.Request { return p.receivedOf(method, false) }

// notifications returns the notifications for method received so far.
func (p *peer) notifications(method string) []*jsonrpc.Request { return p.receivedOf(method, true) }

// receivedOf returns the messages for method received so far: the
// notifications when notes, else the requests.
func (p *peer) receivedOf(method string, notes bool) []*jsonrpc.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*jsonrpc.Request
	for _, r := range p.received {
		if r.Method == method && r.IsNotification() == notes {
			out = append(out, r)
		}
	}
	return out
}

// methods returns the methods of everything received so far, in order.
func (p *peer) methods() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.received))
	for i, r := range p.received {
		out[i] = r.Method
	}
	return out
}

// nextNote waits for the next notification the fake server receives.
func (p *peer) nextNote() *jsonrpc.Request {
	p.t.Helper()
	select {
	case n := <-p.notes:
		return n
	case <-time.After(testTimeout):
		p.t.Fatal("timed out waiting for a notification from the client")
		return nil
	}
}

// drained closes the client session and waits until the fake server has
// read everything the client sent and ended, so p.received is final.
func (p *peer) drained(s *Session) {
	p.t.Helper()
	s.Close()
	select {
	case <-p.conn.Done():
	case <-time.After(testTimeout):
		p.t.Fatal("timed out waiting for the fake server to see the end of the stream")
	}
}

// discoverResult answers server/discover for a modern server.
func discoverResult(versions ...string) handlerFunc {
	return func(context.Context, *jsonrpc.Request) (any, error) {
		res := &mcp.DiscoverResult{
			Result:            mcp.Result{ResultType: mcp.ResultComplete},
			Cache:             &mcp.CacheableResult{CacheScope: mcp.CachePublic},
			SupportedVersions: versions,
			Capabilities:      mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}},
			Instructions:      "be kind",
		}
		res.Meta.Set(mcp.MetaServerInfo, mcp.Implementation{Name: "fake", Version: "9"})
		return res, nil
	}
}

// initializeResult answers initialize with the version the client offered.
func initializeResult(_ context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.InitializeParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, err
	}
	return &mcp.InitializeResult{
		ProtocolVersion: p.ProtocolVersion,
		ServerInfo:      mcp.Implementation{Name: "legacy-fake", Version: "1"},
		Capabilities:    mcp.ServerCapabilities{Prompts: &mcp.PromptsCapability{}},
		Instructions:    "old school",
	}, nil
}

// raw returns a handler answering with fixed raw JSON.
func raw(result string) handlerFunc {
	return func(context.Context, *jsonrpc.Request) (any, error) { return stdjson.RawMessage(result), nil }
}

// connect starts a fake server with handlers (server/discover answered as a
// modern server unless handlers say otherwise) and connects a client to it.
func connect(t *testing.T, opts *Options, handlers map[string]handlerFunc) (*Session, *peer) {
	t.Helper()
	if handlers == nil {
		handlers = map[string]handlerFunc{}
	}
	if _, ok := handlers[mcp.MethodServerDiscover]; !ok {
		handlers[mcp.MethodServerDiscover] = discoverResult(mcp.Version20260728)
	}
	if _, ok := handlers[mcp.MethodInitialize]; !ok {
		handlers[mcp.MethodInitialize] = initializeResult
	}
	p, stream := newPeer(t, handlers)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	s, err := New(mcp.Implementation{Name: "test-client", Version: "0.1"}, opts).Connect(ctx, stream)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, p
}

// meta decodes the _meta of a request the fake server received.
func meta(t *testing.T, req *jsonrpc.Request) mcp.Meta {
	t.Helper()
	var p mcp.RequestParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatalf("params of %s: %v", req.Method, err)
	}
	return p.Meta
}

// testCtx returns a context bounded by testTimeout.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// declineElicit is a form elicitation handler that always declines.
func declineElicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
}

package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// legacyVersions are the versions negotiated by initialize.
var legacyVersions = []string{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125}

// allVersions are every version the server speaks.
var allVersions = append(legacyVersions[:len(legacyVersions):len(legacyVersions)], mcp.Version20260728)

// waitFor bounds every wait in these tests: generous, since it only matters
// when something is broken.
const waitFor = 10 * time.Second

// echoIn and echoOut are the arguments and result of the echo tools.
type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// testClient is the client end of a connection to a server under test: a
// real jsonrpc.Conn over transport.Pipe, speaking raw JSON.
type testClient struct {
	t       testing.TB
	conn    *jsonrpc.Conn
	session *Session
	// notes receives every notification the server sends, in order.
	notes chan *jsonrpc.Request
	// version is the protocol version requests are made under: a legacy one
	// after initialize, or the modern one (then every request gets _meta).
	version string
	// caps is the client capabilities modern requests declare.
	caps string
}

// answerFunc answers a server-to-client request (sampling, elicitation, roots).
type answerFunc func(ctx context.Context, method string, params stdjson.RawMessage) (any, error)

// connect serves a new connection with s and returns its client end; answer
// serves the server's requests (nil: -32601).
func connect(t testing.TB, s *Server, answer answerFunc) *testClient {
	t.Helper()
	clientEnd, serverEnd := transport.Pipe()
	return connectOver(t, s, answer, clientEnd, serverEnd)
}

// connectOver is connect over the two ends of a stream of the caller's.
func connectOver(t testing.TB, s *Server, answer answerFunc, clientEnd, serverEnd jsonrpc.Stream) *testClient {
	t.Helper()
	c := &testClient{t: t, notes: make(chan *jsonrpc.Request, 1024), caps: `{}`}
	c.conn = jsonrpc.NewConn(clientEnd, jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.IsNotification() {
				select {
				case c.notes <- req:
				default:
					t.Errorf("too many notifications queued; dropping %s", req.Method)
				}
				return nil, nil
			}
			if answer == nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "the test client serves no %s", req.Method)
			}
			return answer(ctx, req.Method, req.Params)
		}),
	})
	ss, err := s.Connect(context.Background(), serverEnd, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	c.session = ss
	t.Cleanup(func() {
		c.conn.Close()
		if err := ss.Close(); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
			t.Logf("closing the session: %v", err)
		}
	})
	return c
}

// open connects and, for a legacy version, initializes with caps; for the
// modern version it only records caps for the _meta of later requests.
func open(t testing.TB, s *Server, version, caps string, answer answerFunc) *testClient {
	t.Helper()
	return connect(t, s, answer).initialize(version, caps)
}

// initialize is open's handshake on a connected client.
func (c *testClient) initialize(version, caps string) *testClient {
	t := c.t
	t.Helper()
	c.version, c.caps = version, caps
	if mcp.IsModern(version) {
		return c
	}
	res := c.mustCall(mcp.MethodInitialize, fmt.Sprintf(
		`{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"test","version":"1.0"}}`, version, caps))
	var ir mcp.InitializeResult
	decode(t, res, &ir)
	if ir.ProtocolVersion != version {
		t.Fatalf("initialize negotiated %q, want %q", ir.ProtocolVersion, version)
	}
	c.notify(mcp.NotificationInitialized, `{}`)
	c.sync()
	return c
}

// sync makes a round trip, after which the server has handled every
// notification the client sent before (they are handled in order on the
// connection's read loop).
func (c *testClient) sync() {
	c.t.Helper()
	if _, err := c.rawCall("ping", ""); err != nil {
		c.t.Fatalf("ping: %v", err)
	}
}

// modernMeta returns the _meta members of a modern request (without braces).
func (c *testClient) modernMeta() string {
	return fmt.Sprintf(`"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":%s,`+
		`"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1.0"}`, mcp.Version20260728, c.caps)
}

// withMeta adds the modern _meta to params when the client is modern; extra
// holds more _meta members (without braces), for either era.
func (c *testClient) withMeta(params, extra string) string {
	members := extra
	if mcp.IsModern(c.version) {
		members = c.modernMeta()
		if extra != "" {
			members += "," + extra
		}
	}
	if members == "" {
		return params
	}
	if params == "" || params == "{}" {
		return `{"_meta":{` + members + `}}`
	}
	return `{"_meta":{` + members + `},` + strings.TrimPrefix(params, "{")
}

// call sends a request with params (raw JSON, "" for none) as is.
func (c *testClient) rawCall(method, params string) (stdjson.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var p any
	if params != "" {
		p = stdjson.RawMessage(params)
	}
	var res stdjson.RawMessage
	err := c.conn.Call(ctx, method, p, &res)
	return res, err
}

// call sends a request in the client's era (modern _meta added).
func (c *testClient) call(method, params string) (stdjson.RawMessage, error) {
	return c.rawCall(method, c.withMeta(params, ""))
}

// mustCall is call that fails the test on an error.
func (c *testClient) mustCall(method, params string) stdjson.RawMessage {
	c.t.Helper()
	res, err := c.call(method, params)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, params, err)
	}
	return res
}

// callErr is call that expects a JSON-RPC error and returns it.
func (c *testClient) callErr(method, params string) *jsonrpc.Error {
	c.t.Helper()
	res, err := c.call(method, params)
	return wantRPCError(c.t, method, res, err)
}

// wantRPCError asserts that err is a *jsonrpc.Error and returns it.
func wantRPCError(t testing.TB, method string, res stdjson.RawMessage, err error) *jsonrpc.Error {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("%s: want a JSON-RPC error, got result %s, error %v", method, res, err)
	}
	return je
}

// notify sends a notification with raw params.
func (c *testClient) notify(method, params string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := c.conn.Notify(ctx, method, stdjson.RawMessage(params)); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// nextNote waits for the next notification.
func (c *testClient) nextNote() *jsonrpc.Request {
	c.t.Helper()
	select {
	case n := <-c.notes:
		return n
	case <-time.After(waitFor):
		c.t.Fatalf("no notification arrived within %v", waitFor)
		return nil
	}
}

// noNote asserts that no notification is queued now.
func (c *testClient) noNote() {
	c.t.Helper()
	select {
	case n := <-c.notes:
		c.t.Fatalf("unexpected notification %s %s", n.Method, n.Params)
	default:
	}
}

// decode decodes raw JSON into v, failing the test on error.
func decode(t testing.TB, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s into %T: %v", raw, v, err)
	}
}

// member returns the raw value at a path of object members ("" when absent).
func member(t testing.TB, raw []byte, path ...string) string {
	t.Helper()
	v := jsontext.Value(raw)
	for _, name := range path {
		var obj map[string]jsontext.Value
		if err := json.Unmarshal(v, &obj); err != nil {
			return ""
		}
		next, ok := obj[name]
		if !ok {
			return ""
		}
		v = next
	}
	return string(v)
}

// newTestServer returns a server with no registrations and quiet logs.
func newTestServer(t testing.TB, opts *Options) *Server {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	return New(mcp.Implementation{Name: "weft-test", Version: "0.0.1"}, &o)
}

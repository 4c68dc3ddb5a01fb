package server

import (
	"context"
	stdjson "encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// rawSession is a connection whose client end is the bare stream, so a test
// sees exactly which messages the server writes.
type rawSession struct {
	t      *testing.T
	client jsonrpc.Stream
	ctx    context.Context
}

func rawConnect(t *testing.T, s *Server) *rawSession {
	client, server := transport.Pipe()
	ss, err := s.Connect(context.Background(), server, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	t.Cleanup(func() { cancel(); client.Close(); ss.Close() })
	return &rawSession{t: t, client: client, ctx: ctx}
}

func (rs *rawSession) write(id int64, method, params string) {
	rs.t.Helper()
	req := &jsonrpc.Request{Method: method}
	if id != 0 {
		req.ID = jsonrpc.Int64ID(id)
	}
	if params != "" {
		req.Params = stdjson.RawMessage(params)
	}
	if err := rs.client.Write(rs.ctx, req); err != nil {
		rs.t.Fatalf("writing %s: %v", method, err)
	}
}

// readResponse reads until the response with id, failing on a response with
// any id in forbidden.
func (rs *rawSession) readResponse(id int64, forbidden ...int64) *jsonrpc.Response {
	rs.t.Helper()
	for {
		msg, err := rs.client.Read(rs.ctx)
		if err != nil {
			rs.t.Fatalf("reading: %v", err)
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			continue
		}
		for _, f := range forbidden {
			if resp.ID == jsonrpc.Int64ID(f) {
				rs.t.Fatalf("the server answered request %d: %s %v", f, resp.Result, resp.Error)
			}
		}
		if resp.ID == jsonrpc.Int64ID(id) {
			return resp
		}
	}
}

// blockingServer has a tool that signals started, waits for its context to
// end, and signals stopped.
func blockingServer(t *testing.T) (s *Server, started, stopped chan struct{}) {
	s = newTestServer(t, nil)
	started, stopped = make(chan struct{}, 1), make(chan struct{}, 1)
	AddTool(s, &mcp.Tool{Name: "block", Description: "Blocks until cancelled."}, func(ctx context.Context, _ *Request, _ struct{}) (string, error) {
		started <- struct{}{}
		defer func() { stopped <- struct{}{} }()
		<-ctx.Done()
		return "cancelled", ctx.Err()
	})
	return s, started, stopped
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitFor):
		t.Fatalf("%s did not happen within %v", what, waitFor)
	}
}

const initParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`

func TestCancel_ReceiverMustNotRespondAfterCancel(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			s, started, stopped := blockingServer(t)
			rs := rawConnect(t, s)
			params := `{"name":"block"}`
			if era == "legacy" {
				rs.write(1, "initialize", initParams)
				rs.readResponse(1)
				rs.write(0, "notifications/initialized", "")
			} else {
				params = `{"name":"block","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
			}
			rs.write(5, "tools/call", params)
			wait(t, started, "the handler starting")
			rs.write(0, "notifications/cancelled", `{"requestId":5,"reason":"user"}`)
			wait(t, stopped, "the handler's context ending")
			rs.write(6, "tools/list", c0Meta(era))
			rs.readResponse(6, 5)
			rs.write(7, "tools/list", c0Meta(era))
			rs.readResponse(7, 5)
		})
	}
}

// c0Meta returns tools/list params for the era.
func c0Meta(era string) string {
	if era == "modern" {
		return `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	}
	return `{}`
}

func TestCancel_UnknownOrFinishedRequestIsIgnored(t *testing.T) {
	s := fullServer(t, nil)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	c.mustCall("tools/call", `{"name":"echo","arguments":{"text":"a"}}`)
	c.notify("notifications/cancelled", `{"requestId":1}`)           // finished (initialize) — and initialize at that
	c.notify("notifications/cancelled", `{"requestId":999}`)         // unknown
	c.notify("notifications/cancelled", `{"requestId":"nope"}`)      // unknown string id
	c.notify("notifications/cancelled", `{"reason":"no id at all"}`) // malformed
	c.notify("notifications/cancelled", `{"requestId":[1]}`)         // malformed
	res := c.mustCall("tools/call", `{"name":"echo","arguments":{"text":"b"}}`)
	if !strings.Contains(string(res), `\"b\"`) {
		t.Errorf("after ignored cancellations: %s", res)
	}
	c.noNote()
}

func TestCancel_InitializeMustNotBeCancelled(t *testing.T) {
	rs := rawConnect(t, fullServer(t, nil))
	// Both messages are written before the client reads anything: the
	// cancellation reaches the server while initialize may still be running.
	rs.write(1, "initialize", initParams)
	rs.write(0, "notifications/cancelled", `{"requestId":1}`)
	resp := rs.readResponse(1)
	if resp.Error != nil || !strings.Contains(string(resp.Result), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize answered %s %v", resp.Result, resp.Error)
	}
	rs.write(0, "notifications/initialized", "")
	rs.write(2, "tools/list", `{}`)
	if resp := rs.readResponse(2); resp.Error != nil {
		t.Errorf("the session is not usable: %v", resp.Error)
	}
}

func TestCancel_CancelCrossingTheResponseHarmsNothing(t *testing.T) {
	rs := rawConnect(t, fullServer(t, nil))
	rs.write(1, "initialize", initParams)
	rs.readResponse(1)
	rs.write(0, "notifications/initialized", "")
	for id := int64(2); id < 12; id++ {
		// The cancellation follows the request at once: it may arrive while
		// the call runs or after its response went out. Either is fine.
		rs.write(id, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
		rs.write(0, "notifications/cancelled", `{"requestId":`+jsonrpc.Int64ID(id).Raw()+`}`)
	}
	rs.write(100, "ping", "")
	if resp := rs.readResponse(100); resp.Error != nil || string(resp.Result) != `{}` {
		t.Errorf("ping after crossing cancellations: %s %v", resp.Result, resp.Error)
	}
}

func TestCancel_ServerMustOnlyCancelItsOwnAbandonedRequests(t *testing.T) {
	s := newTestServer(t, nil)
	asked := make(chan jsonrpc.ID, 1)
	release := make(chan struct{})
	AddTool(s, &mcp.Tool{Name: "impatient", Description: "Gives up on the client."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			<-asked // the client has the question: give up on it
			cancel()
		}()
		_, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		return "gave up", err
	})
	var askedID jsonrpc.ID
	c := open(t, s, mcp.Version20251125, `{"elicitation":{}}`, func(ctx context.Context, method string, _ stdjson.RawMessage) (any, error) {
		id, _ := jsonrpc.InboundID(ctx)
		askedID = id
		asked <- id
		<-release
		return stdjson.RawMessage(`{"action":"cancel"}`), nil
	})
	res := c.mustCall("tools/call", `{"name":"impatient"}`)
	if member(t, res, "isError") != "true" || !strings.Contains(string(res), "context canceled") {
		t.Errorf("the handler's result %s", res)
	}
	n := c.nextNote()
	if n.Method != mcp.NotificationCancelled || member(t, n.Params, "requestId") != askedID.Raw() {
		t.Errorf("got %s %s, want notifications/cancelled for the server's request %s", n.Method, n.Params, askedID)
	}
	close(release)
	c.mustCall("ping", `{}`)
	c.noNote()
}

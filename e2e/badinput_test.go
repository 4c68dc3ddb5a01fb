package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// wantError checks that r is an error response with code for id.
func wantError(t *testing.T, r *jsonrpc.Response, id jsonrpc.ID, code int64) {
	t.Helper()
	if r.Error == nil || r.Error.Code != code || r.ID != id {
		t.Fatalf("got %+v (error %+v), want error %d for id %s", r, r.Error, code, id)
	}
	if r.Error.Message == "" {
		t.Errorf("error %d has no message", code)
	}
}

func TestMalformedJSONGetsParseErrorAndTheConnectionLives(t *testing.T) {
	forEachRaw(t, allVersions, func(t *testing.T, p *rawPeer, v string) {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list",`)
		wantError(t, p.response(), jsonrpc.NullID, jsonrpc.CodeParseError)
		p.send(`not json at all`)
		wantError(t, p.response(), jsonrpc.NullID, jsonrpc.CodeParseError)
		p.alive(v)
	})
}

func TestInvalidRequestsGetInvalidRequest(t *testing.T) {
	forEachRaw(t, allVersions, func(t *testing.T, p *rawPeer, v string) {
		p.send(`{"jsonrpc":"1.0","id":5,"method":"tools/list"}`)
		wantError(t, p.response(), jsonrpc.Int64ID(5), jsonrpc.CodeInvalidRequest)
		p.send(`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`)
		wantError(t, p.response(), jsonrpc.NullID, jsonrpc.CodeInvalidRequest)
		p.alive(v)
	})
}

func TestUnknownMethodGetsMethodNotFound(t *testing.T) {
	forEachRaw(t, allVersions, func(t *testing.T, p *rawPeer, v string) {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"nope/nothing","params":{%s}}`, meta(v)))
		wantError(t, p.response(), jsonrpc.Int64ID(7), jsonrpc.CodeMethodNotFound)
		// A method of another era is unknown too.
		other := mcp.MethodSubscriptionsListen
		if mcp.IsModern(v) {
			other = mcp.MethodPing
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":8,"method":%q,"params":{%s}}`, other, meta(v)))
		wantError(t, p.response(), jsonrpc.Int64ID(8), jsonrpc.CodeMethodNotFound)
		p.alive(v)
	})
}

// The size limit is the transport's, the same in every version, so one
// version of each era is enough (a 4 MiB message is slow under -race).
func TestOversizedMessageIsRefusedAndTheConnectionLives(t *testing.T) {
	forEachRaw(t, []string{mcp.Version20251125, mcp.Version20260728}, func(t *testing.T, p *rawPeer, v string) {
		huge := strings.Repeat("x", jsonrpc.DefaultMaxMessageSize)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"s":%q},%s}}`, huge, meta(v)))
		r := p.response()
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "exceeds") {
			t.Fatalf("an oversized message got %+v, want -32600 saying it exceeds the limit", r.Error)
		}
		p.alive(v)
	})
}

func TestPanickingHandlerGetsInternalErrorAndTheConnectionLives(t *testing.T) {
	forEachRaw(t, allVersions, func(t *testing.T, p *rawPeer, v string) {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"panic",%s}}`, meta(v)))
		wantError(t, p.response(), jsonrpc.Int64ID(10), jsonrpc.CodeInternalError)
		p.alive(v)
	})
}

// Batches exist only in 2025-03-26: there they are answered with a batch;
// every other version refuses them with one -32600.
func TestBatchesOnlyIn20250326(t *testing.T) {
	forEachRaw(t, allVersions, func(t *testing.T, p *rawPeer, v string) {
		p.send(fmt.Sprintf(`[{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},%[1]s}},`+
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"none","progress":1}},`+
			`{"jsonrpc":"2.0","id":"b2","method":"tools/list","params":{%[1]s}}]`, meta(v)))
		msg := p.recv()
		if !mcp.AllowsBatch(v) {
			r, ok := msg.(*jsonrpc.Response)
			if !ok {
				t.Fatalf("a batch at %s got %T, want a single error response", v, msg)
			}
			wantError(t, r, jsonrpc.NullID, jsonrpc.CodeInvalidRequest)
			p.alive(v)
			return
		}
		b, ok := msg.(jsonrpc.Batch)
		if !ok || len(b) != 2 {
			t.Fatalf("a batch of two requests and a notification got %#v, want a batch of two responses", msg)
		}
		got := map[string]*jsonrpc.Response{}
		for _, m := range b {
			r := m.(*jsonrpc.Response)
			got[r.ID.String()] = r
		}
		if r := got[`"b1"`]; r == nil || r.Error != nil || !strings.Contains(string(r.Result), `{\"sum\":3}`) {
			t.Errorf("b1 = %+v", r)
		}
		if r := got[`"b2"`]; r == nil || r.Error != nil || !strings.Contains(string(r.Result), `"tools"`) {
			t.Errorf("b2 = %+v", r)
		}
		p.alive(v)
	})
}

// The initialize request cannot be cancelled: a server that receives a
// notifications/cancelled for it answers initialize anyway.
func TestServerAnswersInitializeEvenWhenTheClientCancelsIt(t *testing.T) {
	forEach(t, legacyVersions, func(t *testing.T, e env) {
		p := dialRaw(t, e.transport)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, e.version))
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"impatient"}}`)
		r := p.response()
		if r.ID != jsonrpc.Int64ID(1) || r.Error != nil || !strings.Contains(string(r.Result), e.version) {
			t.Fatalf("initialize after its cancellation got %+v %s, want its result", r, r.Result)
		}
		p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		p.alive(e.version)
	})
}

// initialize without protocolVersion, capabilities or clientInfo gets
// -32602 naming what is missing, and opens no session: a complete
// initialize afterwards works.
func TestServerRefusesInitializeWithoutItsRequiredParams(t *testing.T) {
	forEach(t, []string{mcp.Version20250618}, func(t *testing.T, e env) {
		p := dialRaw(t, e.transport)
		for i, params := range []string{``, `,"params":{}`, `,"params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"raw","version":"1"}}`} {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize"%s}`, i, params))
			r := p.response()
			if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "missing: ") ||
				!strings.Contains(r.Error.Message, "capabilities") {
				t.Errorf("initialize%s: %+v %s, want -32602 naming capabilities", params, r.Error, r.Result)
			}
		}
		p.open(e.version)
		p.alive(e.version)
	})
}

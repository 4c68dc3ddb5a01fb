package streamable

import (
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestRouterWireIDsNameTheirInstance(t *testing.T) {
	a, b := &router{instance: "AAAAAAAAAAAA"}, &router{instance: "BBBBBBBBBBBB"}
	wire := a.wireID(jsonrpc.Int64ID(7))
	if wire.Raw() != `"AAAAAAAAAAAA.7"` {
		t.Fatalf("wireID(7) = %s, want \"AAAAAAAAAAAA.7\"", wire)
	}
	if id, ok := a.localID(wire); !ok || id.Raw() != "7" {
		t.Fatalf("localID(%s) on its instance = %s, %v; want 7, true", wire, id, ok)
	}
	for _, foreign := range []jsonrpc.ID{wire, jsonrpc.Int64ID(7), jsonrpc.StringID("BBBBBBBBBBBB.x"), jsonrpc.StringID("BBBBBBBBBBBB.")} {
		if id, ok := b.localID(foreign); ok {
			t.Errorf("localID(%s) on another instance = %s, true; want false", foreign, id)
		}
	}
	// An ID the server's connection did not make is kept as it is.
	if s := jsonrpc.StringID("mine"); a.wireID(s) != s {
		t.Errorf("wireID(%s) = %s, want it kept", s, a.wireID(s))
	}
}

func TestRouterRewritesTheServersCancelOfItsRequest(t *testing.T) {
	r := &router{instance: "AAAAAAAAAAAA"}
	req := &jsonrpc.Request{Method: methodCancelled, Params: []byte(`{"requestId":3,"reason":"done"}`)}
	out := r.outboundRequest(req)
	if id, ok := cancelledID(out.Params); !ok || id.Raw() != `"AAAAAAAAAAAA.3"` {
		t.Fatalf("the cancel's params became %s, want requestId \"AAAAAAAAAAAA.3\"", out.Params)
	}
	if string(req.Params) != `{"requestId":3,"reason":"done"}` {
		t.Fatalf("the server's own message changed: %s", req.Params)
	}
}

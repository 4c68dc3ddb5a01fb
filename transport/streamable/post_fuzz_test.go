package streamable

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// fuzzSchema is the inputSchema the fuzzed tools/call headers are checked
// against: one argument mirrored into Mcp-Param-Region.
const fuzzSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`

// FuzzPostBody runs a POST body and its headers through what the handler
// does before a server sees it: reading and decoding the body, choosing
// the era, and checking the modern headers against the body. A refused
// body gets 400 with -32700 or -32600, or 413, each as a JSON-RPC error
// response; an accepted one has each batch element either kept or
// answered with -32600; the routing members scanned from the params agree
// with a full decode; and a header check fails only with -32020.
func FuzzPostBody(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, seed := range []struct{ body, version, method, name, region string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"region":"eu"},` + meta + `}}`, "2026-07-28", "tools/call", "t", "eu"},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":4.0},` + meta + `}}`, "2026-07-28", "tools/call", "=?base64?dA==?=", ""},
		{`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"a://b",` + meta + `}}`, "2026-07-28", "resources/read", "a://b", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "", "", "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2},3,{"jsonrpc":"2.0","method":"n"}]`, "2025-03-26", "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "2026-07-28", "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7},"name":1}}`, "2026-07-28", "tools/call", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":[` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `]}}}`, "x", "m", "", ""},
		{`[]`, "", "", "", ""}, {`{`, "", "", "", ""}, {"\xff", "", "", "", ""},
	} {
		f.Add([]byte(seed.body), seed.version, seed.method, seed.name, seed.region, false)
	}
	h := NewHandler(nil, &HandlerOptions{
		MaxBodyBytes: 4 << 10,
		ToolInputSchema: func(context.Context, string) (stdjson.RawMessage, bool) {
			return stdjson.RawMessage(fuzzSchema), true
		},
	})
	f.Fuzz(func(t *testing.T, body []byte, version, method, name, region string, session bool) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		for header, value := range map[string]string{headerProtocolVersion: version, headerMethod: method, headerName: name, "Mcp-Param-Region": region} {
			if value != "" {
				r.Header[http.CanonicalHeaderKey(header)] = []string{value}
			}
		}
		if session {
			r.Header.Set(headerSessionID, "s")
		}
		w := httptest.NewRecorder()
		p, ok := readPost(w, r, h.opts.MaxBodyBytes)
		if !ok {
			checkRefusal(t, body, w)
			return
		}
		checkPost(t, body, p)
		if req := p.single(); req != nil && isModern(r, p) {
			if jerr := h.checkModernHeaders(r, req, &p.route); jerr != nil && (jerr.Code != mcp.CodeHeaderMismatch || jerr.Message == "") {
				t.Fatalf("header check of %q: error %d %q, want -32020 with a message", body, jerr.Code, jerr.Message)
			}
		}
	})
}

// checkRefusal checks the answer to a refused body.
func checkRefusal(t *testing.T, body []byte, w *httptest.ResponseRecorder) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage(w.Body.Bytes())
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.Error == nil || resp.Error.Message == "" || w.Header().Get("Content-Type") != mediaJSON {
		t.Fatalf("refusing %q: %d %q is not a JSON-RPC error response", body, w.Code, w.Body.Bytes())
	}
	switch {
	case w.Code == http.StatusRequestEntityTooLarge && len(body) > 4<<10 && resp.Error.Code == codeTransport:
	case w.Code == http.StatusBadRequest && (resp.Error.Code == jsonrpc.CodeParseError || resp.Error.Code == jsonrpc.CodeInvalidRequest):
	default:
		t.Fatalf("refusing %q: status %d with error %d", body, w.Code, resp.Error.Code)
	}
}

// checkPost checks an accepted body: its messages, the count of requests,
// the answers to a batch's invalid elements, and the routing members of a
// single request's params against a full decode.
func checkPost(t *testing.T, body []byte, p *post) {
	t.Helper()
	if len(p.msgs)+len(p.rejected) == 0 || !p.batch && (len(p.msgs) != 1 || len(p.rejected) != 0) {
		t.Fatalf("%q: %d messages and %d rejected (batch %v)", body, len(p.msgs), len(p.rejected), p.batch)
	}
	requests := 0
	for _, m := range p.msgs {
		if req, ok := m.(*jsonrpc.Request); ok && !req.IsNotification() {
			requests++
		}
	}
	if requests != p.requests {
		t.Fatalf("%q: %d requests counted, %d present", body, p.requests, requests)
	}
	for _, m := range p.rejected {
		if resp, ok := m.(*jsonrpc.Response); !ok || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("%q: a rejected element is answered with %+v", body, m)
		}
	}
	req := p.single()
	if req == nil || len(req.Params) == 0 || req.Params[0] != '{' {
		return
	}
	var params map[string]any
	if err := json.Unmarshal(req.Params, &params); err != nil {
		t.Fatalf("%q: decoded params %q do not decode again: %v", body, req.Params, err)
	}
	metaMap, _ := params["_meta"].(map[string]any)
	version, hasVersion := metaMap[mcp.MetaProtocolVersion].(string)
	if hasVersion != p.route.hasVersion || version != p.route.version {
		t.Fatalf("%q: scanned version %q (%v), the params hold %q (%v)", body, p.route.version, p.route.hasVersion, version, hasVersion)
	}
	if key := mcp.NameParam(req.Method); key != "" {
		n, has := params[key].(string)
		if has != p.route.hasName || n != p.route.name {
			t.Fatalf("%q: scanned name %q (%v), the params hold %q (%v)", body, p.route.name, p.route.hasName, n, has)
		}
	}
}

// FuzzHeaderValue checks the x-mcp-header value encoding: any string
// encodes to a header value that is plain printable ASCII without
// surrounding space and decodes back to itself; decoding any header value
// never panics, and a plain value that is not a sentinel decodes to itself.
func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"us-west1", "Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?=", "", "\t", "=?base64?", "=?base64?!!?=", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := EncodeHeaderValue(s)
		for i := 0; i < len(enc); i++ {
			if c := enc[i]; c < 0x20 || c > 0x7e {
				t.Fatalf("EncodeHeaderValue(%q) = %q holds byte 0x%02x", s, enc, c)
			}
		}
		if strings.TrimSpace(enc) != enc {
			t.Fatalf("EncodeHeaderValue(%q) = %q has surrounding space", s, enc)
		}
		if dec, err := DecodeHeaderValue(enc); err != nil || dec != s {
			t.Fatalf("DecodeHeaderValue(EncodeHeaderValue(%q)) = %q, %v", s, dec, err)
		}
		dec, err := DecodeHeaderValue(s)
		isSentinel := strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix) && len(s) >= len(base64Prefix)+len(base64Suffix)
		if err == nil && !isSentinel && dec != s {
			t.Fatalf("DecodeHeaderValue(%q) = %q; a plain value decodes to itself", s, dec)
		}
		if err != nil && err.Error() == "" {
			t.Fatalf("DecodeHeaderValue(%q) failed without a message", s)
		}
	})
}

package mcp

import (
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

// exactJSON fails unless e encodes to exactly want.
func exactJSON(t *testing.T, e *jsonrpc.Error, want string) {
	t.Helper()
	if got := string(encode(t, e)); got != want {
		t.Errorf("error encodes as\n %s\nwant\n %s", got, want)
	}
}

func TestUnsupportedVersionErrorDataShape(t *testing.T) {
	// The spec's example error, member for member.
	e := UnsupportedVersionError("1900-01-01", []string{"2026-07-28", "2025-11-25"})
	exactJSON(t, e, `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}`)

	// An empty supported list is still a list.
	exactJSON(t, UnsupportedVersionError("x", nil),
		`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":[],"requested":"x"}}`)
}

func TestMissingCapabilityErrorDataShape(t *testing.T) {
	e := MissingCapabilityError(ClientCapabilities{Extensions: map[string]JSONObject{ExtensionTasks: {}}})
	exactJSON(t, e, `{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`)

	e = MissingCapabilityError(ClientCapabilities{Elicitation: &ElicitationCapability{}})
	assertSameJSON(t, e.Data, `{"requiredCapabilities":{"elicitation":{}}}`)

	// Required capabilities decode back into the typed data, as a client reads them.
	var data MissingCapabilityData
	if err := (Meta{"d": e.Data}).Decode("d", &data); err != nil {
		t.Fatal(err)
	}
	if data.RequiredCapabilities.Elicitation == nil || !data.RequiredCapabilities.Elicitation.SupportsForm() {
		t.Errorf("decoded required capabilities lost elicitation: %+v", data.RequiredCapabilities)
	}
}

func TestHeaderMismatchErrors(t *testing.T) {
	exactJSON(t, HeaderMismatchError("Mcp-Name", "foo", "bar"),
		`{"code":-32020,"message":"Header mismatch: Mcp-Name header value \"foo\" does not match body value \"bar\""}`)
	exactJSON(t, MissingHeaderError("Mcp-Method", "is missing"),
		`{"code":-32020,"message":"Header mismatch: Mcp-Method header is missing"}`)
}

func TestResourceNotFoundCodeByEra(t *testing.T) {
	exactJSON(t, ResourceNotFoundError(Version20260728, "file:///nonexistent.txt"),
		`{"code":-32602,"message":"Resource not found","data":{"uri":"file:///nonexistent.txt"}}`)
	for _, v := range []string{Version20241105, Version20250326, Version20250618, Version20251125} {
		if got := ResourceNotFoundCode(v); got != -32002 {
			t.Errorf("ResourceNotFoundCode(%q) = %d, want -32002", v, got)
		}
	}
	exactJSON(t, ResourceNotFoundError(Version20251125, "file:///x"),
		`{"code":-32002,"message":"Resource not found","data":{"uri":"file:///x"}}`)
	for code, want := range map[int64]bool{-32002: true, -32602: true, -32601: false, -32603: false} {
		if got := IsResourceNotFound(code); got != want {
			t.Errorf("IsResourceNotFound(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestURLElicitationRequiredErrorDataShape(t *testing.T) {
	e := URLElicitationRequiredError("This request requires more information.", []ElicitParams{{
		Mode:          ElicitModeURL,
		ElicitationID: "550e8400-e29b-41d4-a716-446655440000",
		URL:           "https://mcp.example.com/connect?elicitationId=550e8400-e29b-41d4-a716-446655440000",
		Message:       "Authorization is required to access your Example Co files.",
	}})
	if e.Code != -32042 {
		t.Errorf("code = %d, want -32042", e.Code)
	}
	assertSameJSON(t, encode(t, e), `{
		"code": -32042,
		"message": "This request requires more information.",
		"data": {"elicitations": [{
			"mode": "url",
			"elicitationId": "550e8400-e29b-41d4-a716-446655440000",
			"url": "https://mcp.example.com/connect?elicitationId=550e8400-e29b-41d4-a716-446655440000",
			"message": "Authorization is required to access your Example Co files."}]}}`)
}

func TestIsModernErrorCode(t *testing.T) {
	for code, want := range map[int64]bool{
		-32020: true, -32021: true, -32022: true,
		-32001: false, -32003: false, -32004: false, -32601: false, -32602: false, -32002: false,
	} {
		if got := IsModernErrorCode(code); got != want {
			t.Errorf("IsModernErrorCode(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestErrorDataThatCannotEncodeSaysSo(t *testing.T) {
	bad := ClientCapabilities{Experimental: map[string]JSONObject{"x": {"k": []byte("{not json")}}}
	e := MissingCapabilityError(bad)
	if e.Data != nil {
		t.Errorf("data = %s, want none", e.Data)
	}
	if e.Code != CodeMissingRequiredClientCapability || len(e.Message) <= len("Missing required client capability") {
		t.Errorf("error = %d %q, want the code kept and the encoding failure in the message", e.Code, e.Message)
	}
}

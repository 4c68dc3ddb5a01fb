package jsonrpc_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestEncodeExactOutput(t *testing.T) {
	tests := []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{"request", &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/list"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"request with string id and params", &jsonrpc.Request{ID: jsonrpc.StringID("a\"b"), Method: "m", Params: []byte(`{"x":[1,2]}`)},
			`{"jsonrpc":"2.0","id":"a\"b","method":"m","params":{"x":[1,2]}}`},
		{"notification has no id", &jsonrpc.Request{Method: "notifications/progress", Params: []byte(`[]`)},
			`{"jsonrpc":"2.0","method":"notifications/progress","params":[]}`},
		{"method needing escapes", &jsonrpc.Request{Method: "é\n\"<"},
			`{"jsonrpc":"2.0","method":"é\n\"<"}`},
		{"result", &jsonrpc.Response{ID: jsonrpc.Int64ID(-3), Result: []byte(`{"ok":true}`)},
			`{"jsonrpc":"2.0","id":-3,"result":{"ok":true}}`},
		{"null result", &jsonrpc.Response{ID: jsonrpc.StringID("r"), Result: []byte(`null`)},
			`{"jsonrpc":"2.0","id":"r","result":null}`},
		{"error", &jsonrpc.Response{ID: jsonrpc.Int64ID(2), Error: jsonrpc.NewError(-32601, "method %q not found", "x")},
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method \"x\" not found"}}`},
		{"error with data", &jsonrpc.Response{ID: jsonrpc.NullID, Error: jsonrpc.NewError(-32700, "bad").WithData(map[string]int{"at": 3})},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":{"at":3}}}`},
		{"error without id writes null", &jsonrpc.Response{Error: jsonrpc.NewError(1, "x")},
			`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`},
		{"batch", jsonrpc.Batch{&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "a"}, &jsonrpc.Response{ID: jsonrpc.Int64ID(2), Result: []byte(`1`)}},
			`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"result":1}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonrpc.EncodeMessage(tt.msg)
			if err != nil {
				t.Fatalf("EncodeMessage: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("EncodeMessage\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The stdio transport: "Messages are delimited by newlines, and MUST NOT
// contain embedded newlines." Raw values are compacted, so whatever a
// handler returns, the encoded message has no newline in it.
func TestEncodedMessagesMustNotContainEmbeddedNewlines(t *testing.T) {
	indented := []byte("{\n  \"text\": \"line1\\nline2\",\r\n  \"list\": [\n    1,\n    2\n  ]\n}")
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: indented},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: indented},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: &jsonrpc.Error{Code: 1, Message: "two\nlines", Data: indented}},
	}
	for _, msg := range msgs {
		got, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("EncodeMessage: %v", err)
		}
		if bytes.ContainsAny(got, "\r\n") {
			t.Errorf("encoded message contains a line break: %q", got)
		}
		if !bytes.Contains(got, []byte(`{"text":"line1\nline2","list":[1,2]}`)) {
			t.Errorf("raw value was not compacted faithfully: %s", got)
		}
	}
}

func TestEncodeRefusesInvalidMessages(t *testing.T) {
	tests := []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{"null request id", &jsonrpc.Request{ID: jsonrpc.NullID, Method: "m"}, "must not be null"},
		{"invalid UTF-8 method", &jsonrpc.Request{Method: "a\xffb"}, "UTF-8"},
		{"params not JSON", &jsonrpc.Request{Method: "m", Params: []byte(`{"a":`)}, "params: not valid JSON"},
		{"params a number", &jsonrpc.Request{Method: "m", Params: []byte(`5`)}, "params must be a JSON object or array"},
		{"params with duplicates", &jsonrpc.Request{Method: "m", Params: []byte(`{"a":1,"a":2}`)}, "duplicate"},
		{"result not JSON", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`{]`)}, "result: not valid JSON"},
		{"two values as result", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`1 2`)}, "result: not valid JSON"},
		{"error data not JSON", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: &jsonrpc.Error{Code: 1, Message: "m", Data: []byte(`x`)}}, "error data"},
		{"both result and error", &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`1`), Error: jsonrpc.NewError(1, "x")}, "both a result and an error"},
		{"neither result nor error", &jsonrpc.Response{ID: jsonrpc.Int64ID(1)}, "neither a result nor an error"},
		{"empty batch", jsonrpc.Batch{}, "empty batch"},
		{"nested batch", jsonrpc.Batch{jsonrpc.Batch{&jsonrpc.Request{Method: "m"}}}, "batch inside a batch"},
		{"nil request", (*jsonrpc.Request)(nil), "cannot encode"},
		{"nil message", nil, "cannot encode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("prefix")
			got, err := jsonrpc.AppendMessage(dst, tt.msg)
			if err == nil {
				t.Fatalf("AppendMessage succeeded: %s", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if string(got) != "prefix" {
				t.Errorf("on error AppendMessage returned %q; want dst unchanged", got)
			}
		})
	}
}

func TestEncodeReplacesInvalidUTF8InErrorMessages(t *testing.T) {
	got, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: jsonrpc.NewError(1, "file a\xffb")})
	if err != nil {
		t.Fatalf("EncodeMessage: %v", err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"file a` + "\ufffd" + `b"}}`; string(got) != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

func TestAppendMessageAppends(t *testing.T) {
	got, err := jsonrpc.AppendMessage([]byte("x"), &jsonrpc.Request{Method: "m"})
	if err != nil || string(got) != `x{"jsonrpc":"2.0","method":"m"}` {
		t.Fatalf("AppendMessage = %s, %v", got, err)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.StringID("id with \"quotes\" and é"), Method: "tools/call", Params: []byte(`{"name":"x","arguments":{"a":[1,2.5,"s",null,true]}}`)},
		&jsonrpc.Request{Method: "notifications/cancelled", Params: []byte(`{"requestId":7}`)},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1 << 62), Result: []byte(`{"content":[]}`)},
		&jsonrpc.Response{ID: jsonrpc.NullID, Error: &jsonrpc.Error{Code: -32700, Message: "x", Data: []byte(`"d"`)}},
		jsonrpc.Batch{&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "a"}, &jsonrpc.Request{Method: "b"}},
	}
	for _, msg := range msgs {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("EncodeMessage(%s): %v", describe(msg), err)
		}
		back, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			t.Fatalf("DecodeMessage(%s): %v", data, err)
		}
		if describe(back) != describe(msg) {
			t.Errorf("round trip changed the message\n got %s\nwant %s", describe(back), describe(msg))
		}
	}
}

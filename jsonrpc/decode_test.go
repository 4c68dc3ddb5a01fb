package jsonrpc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

// describe renders a message in a fixed textual form for comparisons.
func describe(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("request id=%s method=%q params=%s", m.ID, m.Method, m.Params)
	case *jsonrpc.Response:
		if m.Error != nil {
			return fmt.Sprintf("response id=%s error=%d %q data=%s", m.ID, m.Error.Code, m.Error.Message, m.Error.Data)
		}
		return fmt.Sprintf("response id=%s result=%s", m.ID, m.Result)
	case jsonrpc.Batch:
		parts := make([]string, len(m))
		for i, el := range m {
			parts[i] = describe(el)
		}
		return "batch[" + strings.Join(parts, "; ") + "]"
	case *jsonrpc.DecodeError:
		return fmt.Sprintf("invalid id=%s error=%d %q response=%v", m.ID, m.Err.Code, m.Err.Message, m.IsResponse)
	}
	return fmt.Sprintf("%T", msg)
}

func TestDecodeValidMessages(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `request id=1 method="tools/list" params=`},
		{"request with object params", `{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":[1,2]}}`, `request id="a" method="m" params={"x":[1,2]}`},
		{"request with array params", `{"jsonrpc":"2.0","id":2,"method":"m","params":[1,"two"]}`, `request id=2 method="m" params=[1,"two"]`},
		{"params keep their exact bytes", `{"jsonrpc":"2.0","id":2,"method":"m","params":{ "x" : 1 }}`, `request id=2 method="m" params={ "x" : 1 }`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `request id=<none> method="notifications/initialized" params=`},
		{"members in any order", `{"method":"m","params":{},"id":3,"jsonrpc":"2.0"}`, `request id=3 method="m" params={}`},
		{"whitespace around", " \n\t{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\r\n ", `request id=<none> method="m" params=`},
		{"escaped names and values", `{"json\u0072pc":"2\u002e0","\u0069d":"\u0061","method":"\u00e9t\u00e9"}`, `request id="a" method="été" params=`},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"m","extra":{"deep":[1,{"a":null}]},"Method":5}`, `request id=1 method="m" params=`},
		{"result response", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`, `response id=1 result={"ok":true}`},
		{"null result", `{"jsonrpc":"2.0","id":"x","result":null}`, `response id="x" result=null`},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method","data":{"m":"x"}}}`, `response id=1 error=-32601 "no such method" data={"m":"x"}`},
		{"error response with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, `response id=null error=-32700 "parse error" data=`},
		{"error response without id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`, `response id=null error=-32700 "parse error" data=`},
		{"error with unknown member", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","extra":true}}`, `response id=1 error=1 "m" data=`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":9,"result":7}]`,
			`batch[request id=1 method="a" params=; request id=<none> method="b" params=; response id=9 result=7]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := jsonrpc.DecodeMessage([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeMessage(%s): %v", tt.in, err)
			}
			if got := describe(msg); got != tt.want {
				t.Errorf("DecodeMessage(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

// Each element of a batch is decoded on its own (JSON-RPC 2.0 §6): an
// invalid one is a *DecodeError in its place and does not fail the others.
func TestDecodeBatchElementsOneByOne(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"numbers", `[1,2]`, `batch[` +
			`invalid id=null error=-32600 "batch element 0 must be an object, not a number" response=false; ` +
			`invalid id=null error=-32600 "batch element 1 must be an object, not a number" response=false]`},
		{"nested batch", ` [ [{"jsonrpc":"2.0","method":"m"}] ] `,
			`batch[invalid id=null error=-32600 "batch element 0 must be an object, not an array" response=false]`},
		{"valid and invalid mixed", `[{"jsonrpc":"2.0","id":1,"method":"ping"},"x",{"jsonrpc":"2.0","id":true,"method":"m"},{"jsonrpc":"2.0","method":"n"}]`, `batch[` +
			`request id=1 method="ping" params=; ` +
			`invalid id=null error=-32600 "batch element 1 must be an object, not a string" response=false; ` +
			`invalid id=null error=-32600 "batch element 2: id true must be a string or an integer" response=false; ` +
			`request id=<none> method="n" params=]`},
		{"shape errors keep the id", `[{"jsonrpc":"1.0","id":5,"method":"m"},{"jsonrpc":"2.0","id":6}]`, `batch[` +
			`invalid id=5 error=-32600 "batch element 0: member \"jsonrpc\" must be \"2.0\"" response=false; ` +
			`invalid id=6 error=-32600 "batch element 1: member \"method\" is missing (a request needs \"method\"; a response needs \"result\" or \"error\")" response=false]`},
		{"a duplicate name fails its element only", `[{"jsonrpc":"2.0","id":7,"method":"a","method":"b"},{"jsonrpc":"2.0","id":8,"method":"c","params":{"x":1}}]`, `batch[` +
			`invalid id=7 error=-32600 "batch element 0: duplicate member \"method\"" response=false; ` +
			`request id=8 method="c" params={"x":1}]`},
		{"invalid response", `[{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}}]`,
			`batch[invalid id=3 error=-32600 "batch element 0: a response must not have both \"result\" and \"error\"" response=true]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := jsonrpc.DecodeMessage([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeMessage(%s): %v; want a batch", tt.in, err)
			}
			if got := describe(msg); got != tt.want {
				t.Errorf("DecodeMessage(%s):\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeInvalidMessages(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		code       int64
		id         string // Raw of the recovered ID
		isResponse bool
		message    string // a substring of the error message
	}{
		{"empty", ``, jsonrpc.CodeParseError, "null", false, "empty"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"m"`, jsonrpc.CodeParseError, "null", false, "ends before"},
		{"bad syntax", `{"jsonrpc":"2.0",}`, jsonrpc.CodeParseError, "null", false, "invalid JSON at byte"},
		{"two values", `{"jsonrpc":"2.0","method":"m"} {"jsonrpc":"2.0","method":"m"}`, jsonrpc.CodeParseError, "null", false, "after the JSON value"},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"m"}x`, jsonrpc.CodeParseError, "null", false, "invalid JSON"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", jsonrpc.CodeParseError, "null", false, "UTF-8"},
		{"syntax error wins over shape", `{"jsonrpc":"1.0","id":1,"method":"m",]`, jsonrpc.CodeParseError, "null", false, "invalid JSON"},
		{"object where a name is due", `{{"a":0,"a":0}}`, jsonrpc.CodeParseError, "null", false, "invalid JSON at byte 1"},
		{"object where a name of error is due", `{"jsonrpc":"2.0","id":1,"error":{{"a":0,"a":0}}}`, jsonrpc.CodeParseError, "null", false, "invalid JSON at byte"},
		{"not an object", `"hello"`, jsonrpc.CodeInvalidRequest, "null", false, "must be a JSON object or array, not a string"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null", false, "empty array"},
		{"batch that is not JSON", `[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method"]`, jsonrpc.CodeParseError, "null", false, "invalid JSON at byte"},
		{"batch with invalid UTF-8", "[1,\"\xff\"]", jsonrpc.CodeParseError, "null", false, "UTF-8"},
		{"batch followed by data", `[{"jsonrpc":"2.0","method":"m"}] []`, jsonrpc.CodeParseError, "null", false, "after the JSON value"},
		{"missing jsonrpc", `{"id":4,"method":"m"}`, jsonrpc.CodeInvalidRequest, "4", false, `member "jsonrpc" is missing`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":5,"method":"m"}`, jsonrpc.CodeInvalidRequest, "5", false, `member "jsonrpc" must be "2.0"`},
		{"jsonrpc not a string", `{"jsonrpc":2.0,"id":5,"method":"m"}`, jsonrpc.CodeInvalidRequest, "5", false, `member "jsonrpc" must be "2.0"`},
		{"names are case-sensitive", `{"jsonrpc":"2.0","id":6,"Method":"m"}`, jsonrpc.CodeInvalidRequest, "6", false, `member "method" is missing`},
		{"method not a string", `{"jsonrpc":"2.0","id":"q","method":5}`, jsonrpc.CodeInvalidRequest, `"q"`, false, `member "method" must be a string, not a number`},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"m","params":"x"}`, jsonrpc.CodeInvalidRequest, "7", false, `member "params" must be an object or an array, not a string`},
		{"params null", `{"jsonrpc":"2.0","id":7,"method":"m","params":null}`, jsonrpc.CodeInvalidRequest, "7", false, `not null`},
		{"method and result", `{"jsonrpc":"2.0","id":8,"method":"m","result":1}`, jsonrpc.CodeInvalidRequest, "8", false, `both "method" and "result"`},
		{"method and error", `{"jsonrpc":"2.0","id":8,"method":"m","error":{"code":1,"message":"x"}}`, jsonrpc.CodeInvalidRequest, "8", false, `both "method" and "error"`},
		{"neither method nor response", `{"jsonrpc":"2.0","id":9}`, jsonrpc.CodeInvalidRequest, "9", false, `member "method" is missing`},
		{"result without id", `{"jsonrpc":"2.0","result":1}`, jsonrpc.CodeInvalidRequest, "null", true, `must have a string or integer "id"`},
		{"result with null id", `{"jsonrpc":"2.0","id":null,"result":1}`, jsonrpc.CodeInvalidRequest, "null", true, `must have a string or integer "id"`},
		{"error not an object", `{"jsonrpc":"2.0","id":10,"error":"bad"}`, jsonrpc.CodeInvalidRequest, "10", true, `member "error" must be an object, not a string`},
		{"error without code", `{"jsonrpc":"2.0","id":10,"error":{"message":"x"}}`, jsonrpc.CodeInvalidRequest, "10", true, `integer "code"`},
		{"error without message", `{"jsonrpc":"2.0","id":10,"error":{"code":1}}`, jsonrpc.CodeInvalidRequest, "10", true, `string "message"`},
		{"error message not a string", `{"jsonrpc":"2.0","id":10,"error":{"code":1,"message":false}}`, jsonrpc.CodeInvalidRequest, "10", true, `"message" of "error" must be a string`},
		{"duplicate in error", `{"jsonrpc":"2.0","id":10,"error":{"code":1,"code":2,"message":"x"}}`, jsonrpc.CodeInvalidRequest, "10", true, `duplicate member "code" in /error`},
		{"duplicate jsonrpc keeps the id after it", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":11,"method":"m"}`, jsonrpc.CodeInvalidRequest, "11", false, `duplicate member "jsonrpc"`},
		{"duplicate before a response's members", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":11,"result":{}}`, jsonrpc.CodeInvalidRequest, "11", true, `duplicate member "jsonrpc"`},
		{"duplicate id after the duplicate", `{"jsonrpc":"2.0","jsonrpc":"2.0","id":11,"id":12,"method":"m"}`, jsonrpc.CodeInvalidRequest, "null", false, `duplicate member "jsonrpc"`},
		{"duplicate method keeps the id", `{"jsonrpc":"2.0","id":11,"method":"a","method":"b"}`, jsonrpc.CodeInvalidRequest, "11", false, `duplicate member "method"`},
		{"duplicate deep in params", `{"jsonrpc":"2.0","id":12,"method":"m","params":{"a":{"b":1,"b":2}}}`, jsonrpc.CodeInvalidRequest, "12", false, `duplicate member "b" in /params/a`},
		{"duplicate in unknown member", `{"jsonrpc":"2.0","id":12,"method":"m","x":{"b":1,"b":2}}`, jsonrpc.CodeInvalidRequest, "12", false, `duplicate member "b" in /x`},
		{"duplicate via escape", `{"jsonrpc":"2.0","id":13,"method":"m","m\u0065thod":"n"}`, jsonrpc.CodeInvalidRequest, "13", false, `duplicate member "method"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := jsonrpc.DecodeMessage([]byte(tt.in))
			var de *jsonrpc.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("DecodeMessage(%s) = %s, %v; want a *DecodeError", tt.in, describe(msg), err)
			}
			if de.Err.Code != tt.code || de.ID.Raw() != tt.id || de.IsResponse != tt.isResponse {
				t.Errorf("DecodeMessage(%s): code %d id %s isResponse %v; want code %d id %s isResponse %v (%s)",
					tt.in, de.Err.Code, de.ID.Raw(), de.IsResponse, tt.code, tt.id, tt.isResponse, de.Err.Message)
			}
			if !strings.Contains(de.Err.Message, tt.message) {
				t.Errorf("DecodeMessage(%s): message %q does not contain %q", tt.in, de.Err.Message, tt.message)
			}
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e != de.Err {
				t.Errorf("errors.As(err, *Error) does not find the DecodeError's error object")
			}
		})
	}
}

// The spec: "Requests MUST include a string or integer ID."
func TestRequestIDMustBeStringOrInteger(t *testing.T) {
	for _, id := range []string{`1.5`, `1e3`, `1E3`, `-0.0`, `true`, `false`, `{}`, `[1]`, `99999999999999999999`} {
		in := `{"jsonrpc":"2.0","id":` + id + `,"method":"m"}`
		_, err := jsonrpc.DecodeMessage([]byte(in))
		var de *jsonrpc.DecodeError
		if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest || !de.ID.IsNull() {
			t.Errorf("DecodeMessage(%s) = %v; want -32600 with a null id", in, err)
		}
	}
}

// The spec: "Unlike base JSON-RPC, the ID MUST NOT be null."
func TestRequestIDMustNotBeNull(t *testing.T) {
	_, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":null,"method":"m"}`))
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(de.Err.Message, "must not be null") {
		t.Fatalf("got %v; want -32600 saying the id must not be null", err)
	}
}

// The spec: "Either a result or an error MUST be set. A response MUST NOT set both."
func TestResponseMustNotSetBothResultAndError(t *testing.T) {
	_, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}`))
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest || !de.IsResponse || de.ID.Raw() != "4" {
		t.Fatalf("got %v; want -32600 for response 4", err)
	}
}

// The spec: "Error codes MUST be integers."
func TestErrorCodesMustBeIntegers(t *testing.T) {
	for _, code := range []string{`1.5`, `-32600.0`, `1e2`, `"-32600"`, `null`} {
		in := `{"jsonrpc":"2.0","id":1,"error":{"code":` + code + `,"message":"m"}}`
		_, err := jsonrpc.DecodeMessage([]byte(in))
		var de *jsonrpc.DecodeError
		if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest {
			t.Errorf("DecodeMessage(%s) = %v; want -32600", in, err)
		}
	}
}

func TestDecodeKeepsIDsExactly(t *testing.T) {
	tests := []struct{ wire, raw string }{
		{`1`, `1`},
		{`"1"`, `"1"`},
		{`-7`, `-7`},
		{`0`, `0`},
		{`-0`, `0`},
		{`9223372036854775807`, `9223372036854775807`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`""`, `""`},
		{`"\u0031"`, `"1"`},
		{`"a\/b"`, `"a/b"`},
		{`"<&>"`, `"<&>"`},
		{`"\u00e9"`, `"é"`},
		{`"tab\there"`, `"tab\there"`},
	}
	for _, tt := range tests {
		msg, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":` + tt.wire + `,"method":"m"}`))
		if err != nil {
			t.Errorf("id %s: %v", tt.wire, err)
			continue
		}
		if got := msg.(*jsonrpc.Request).ID.Raw(); got != tt.raw {
			t.Errorf("id %s: Raw() = %s; want %s", tt.wire, got, tt.raw)
		}
	}
	one, _ := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
	strOne, _ := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":"1","method":"m"}`))
	if one.(*jsonrpc.Request).ID == strOne.(*jsonrpc.Request).ID {
		t.Errorf("the ids 1 and \"1\" compare equal")
	}
	if one.(*jsonrpc.Request).ID != jsonrpc.Int64ID(1) || strOne.(*jsonrpc.Request).ID != jsonrpc.StringID("1") {
		t.Errorf("decoded ids differ from Int64ID(1) and StringID(\"1\")")
	}
}

// A duplicate member name makes valid JSON an invalid request (-32600), but
// text that is not JSON at all is a parse error (-32700) wherever the
// duplicate is found first: JSON-RPC answers invalid JSON with -32700.
func TestTextWithADuplicateNameThatIsNotJSONIsAParseError(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2},]`,
		`{"jsonrpc":"2.0","id":1,"id":1,"method":"m"}x`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":1,\"method\":\"\xff\"}",
	} {
		_, err := jsonrpc.DecodeMessage([]byte(in))
		var de *jsonrpc.DecodeError
		if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeParseError || !de.ID.IsNull() {
			t.Errorf("DecodeMessage(%s) = %v; want a -32700 parse error with id null", in, err)
		}
	}
}

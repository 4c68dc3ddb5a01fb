package mcp

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// fuzzedTypes are the params and results of the main requests, decoded
// from the wire as the server and the client decode them.
var fuzzedTypes = []func() any{
	func() any { return new(InitializeParams) }, func() any { return new(InitializeResult) },
	func() any { return new(CallToolParams) }, func() any { return new(CallToolResult) },
	func() any { return new(PaginatedParams) }, func() any { return new(ListToolsResult) },
	func() any { return new(ReadResourceParams) }, func() any { return new(ReadResourceResult) },
	func() any { return new(GetPromptParams) }, func() any { return new(GetPromptResult) },
	func() any { return new(CompleteParams) }, func() any { return new(CompleteResult) },
	func() any { return new(ElicitParams) }, func() any { return new(ElicitResult) },
	func() any { return new(CreateMessageParams) }, func() any { return new(CreateMessageResult) },
	func() any { return new(SubscriptionsListenParams) }, func() any { return new(DiscoverResult) },
	func() any { return new(GetTaskParams) }, func() any { return new(ExtGetTaskResult) },
	func() any { return new(UpdateTaskParams) }, func() any { return new(CreateTaskResult) },
	func() any { return new(CancelledNotificationParams) },
	func() any { return new(InputRequiredResult) }, func() any { return new(ProgressNotificationParams) },
}

// FuzzDecodeParamsAndResults decodes any JSON into the params and results
// of the main requests: whatever decodes encodes again, under json/v2 and
// encoding/json alike (as JSON values: a map's members come in no set
// order), to a form that decodes back to the same value.
func FuzzDecodeParamsAndResults(f *testing.F) {
	for _, seed := range []string{
		`{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{}}},"clientInfo":{"name":"c","version":"1"}}`,
		`{"name":"t","arguments":{"a":[1,2.5e3,"s",null,true]},"_meta":{"progressToken":7}}`,
		`{"content":[{"type":"text","text":"x"},{"type":"image","data":"AAEC","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":false}`,
		`{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"c","ttlMs":0,"cacheScope":"public"}`,
		`{"contents":[{"uri":"a://b","text":"t"},{"uri":"a://c","blob":"AAE="}]}`,
		`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"}}`,
		`{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}`,
		`{"taskId":"t","status":"working","createdAt":"2025-01-01T00:00:00Z","lastUpdatedAt":"2025-01-01T00:00:00Z","ttlMs":null}`,
		`{"progressToken":"p","progress":1.5,"total":3,"message":"m"}`,
		`{"requestId":1,"reason":"r"}`, `{"cursor":"\u0000"}`, `{"Name":"t"}`, `{"name":"t","name":"u"}`, `[]`, `null`,
	} {
		for i := range fuzzedTypes {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		newValue := fuzzedTypes[int(which)%len(fuzzedTypes)]
		v := newValue()
		if json.Unmarshal(data, v) != nil {
			return
		}
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T decoded from %q does not encode: %v", v, data, err)
		}
		back := newValue()
		if err := json.Unmarshal(enc, back); err != nil {
			t.Fatalf("%T: %q decoded, encoded as %q, which does not decode: %v", v, data, enc, err)
		}
		// Maps (_meta, arguments) encode their members in no set order,
		// as JSON allows: encodings are compared as JSON values.
		a, errA := decodeNumbersExactly(enc)
		enc2, err := json.Marshal(back)
		again, errAgain := decodeNumbersExactly(enc2)
		if err != nil || errA != nil || errAgain != nil || !reflect.DeepEqual(a, again) {
			t.Fatalf("%T: %q encodes as %q, then as %q (%v)", v, data, enc, enc2, err)
		}
		std, err := stdjson.Marshal(v)
		if err != nil {
			t.Fatalf("%T decoded from %q: encoding/json cannot encode it: %v", v, data, err)
		}
		b, errB := decodeNumbersExactly(std)
		if errB != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%T decoded from %q encodes differently:\njson/v2:       %s\nencoding/json: %s", v, data, enc, std)
		}
	})
}

// decodeNumbersExactly decodes JSON keeping each number that float64 holds
// as its value and any other (1e700, which raw arguments carry through) as
// its literal, so two encodings compare equal when their numbers are.
func decodeNumbersExactly(data []byte) (any, error) {
	dec := stdjson.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return numbersAsValues(v), nil
}

func numbersAsValues(v any) any {
	switch v := v.(type) {
	case stdjson.Number:
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	case []any:
		for i := range v {
			v[i] = numbersAsValues(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = numbersAsValues(v[k])
		}
	}
	return v
}

// FuzzParamHeaders checks the x-mcp-header bindings found in any schema:
// each names a non-empty HTTP token, unique ignoring case, at a path of
// properties keys that leads to that very annotation.
func FuzzParamHeaders(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
		`{"properties":{"a":{"properties":{"b":{"type":"integer","x-mcp-header":"B"}}},"c":{"type":"boolean","x-mcp-header":"b"}}}`,
		`{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"X"}}}}`,
		`{"properties":{"a":{"type":"number","x-mcp-header":"N"}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":"bad name"}}}`,
		`{"properties":{"a":{"type":"string","default":{"x-mcp-header":"D"}}}}`,
		`{"$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`,
		`{"properties":{"a":{"type":["string","null"],"x-mcp-header":"A"}}}`, `[]`, `true`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		bindings, err := ParamHeaders(schema)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParamHeaders(%q) failed without a message", schema)
			}
			return
		}
		var root any
		if len(schema) > 0 && json.Unmarshal(schema, &root) != nil {
			t.Fatalf("ParamHeaders accepted %q, which is not JSON", schema)
		}
		seen := map[string]bool{}
		for _, b := range bindings {
			if b.Name == "" || !isToken(b.Name) || len(b.Path) == 0 {
				t.Fatalf("ParamHeaders(%q): binding %+v", schema, b)
			}
			if seen[strings.ToLower(b.Name)] {
				t.Fatalf("ParamHeaders(%q): %q bound twice", schema, b.Name)
			}
			seen[strings.ToLower(b.Name)] = true
			node := root
			for _, key := range b.Path {
				obj, _ := node.(map[string]any)
				props, _ := obj["properties"].(map[string]any)
				node = props[key]
			}
			if obj, _ := node.(map[string]any); obj[HeaderAnnotation] != b.Name {
				t.Fatalf("ParamHeaders(%q): binding %+v does not lead to its annotation", schema, b)
			}
		}
	})
}

package adversarial

import (
	"fmt"
	"strings"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// answer is one JSON-RPC response the server owes a case: its error code
// (0 for a result) and its id, as raw JSON.
type answer struct {
	code int64
	id   string
}

// badInput is one case of the corpus: a body sent as one message (a line
// on stdio, a POST body over HTTP), and the answers it must get.
type badInput struct {
	name string
	// body returns the message for protocol version v; the params of a
	// request carry the version's _meta, so only the bad part is bad.
	body func(v string) string
	// whole means the body is not a message at all (not JSON, not an
	// object or non-empty array, an invalid object): an HTTP transport
	// refuses the request itself (400) before any session sees it.
	whole bool
	// batch means the body is a JSON-RPC batch, answered as one only in
	// 2025-03-26; other versions refuse it with a single -32600.
	batch bool
	// want are the answers, in any order; none means no answer at all.
	want []answer
	// wantAt, when set, gives the answers at version v instead of want.
	wantAt func(v string) []answer
	// resultHas, when set, must appear in the result's text.
	resultHas string
	// response means the body is a JSON-RPC response, which a modern
	// client must not POST.
	response bool
	// busyAllowed accepts -32000 "server busy" in place of any answer:
	// the server bounds the work one connection queues.
	busyAllowed bool
}

// Answers every case shares.
var (
	parseError     = []answer{{jsonrpc.CodeParseError, "null"}}
	invalidNoID    = []answer{{jsonrpc.CodeInvalidRequest, "null"}}
	invalidID1     = []answer{{jsonrpc.CodeInvalidRequest, "1"}}
	invalidParams1 = []answer{{jsonrpc.CodeInvalidParams, "1"}}
)

// metaFor returns the _meta member of a request's params at version v: an
// empty one in the legacy era, the per-request metadata in the modern one.
func metaFor(v string) string {
	if !mcp.IsModern(v) {
		return `"_meta":{}`
	}
	return fmt.Sprintf(`"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, v, mcp.MetaClientCapabilities)
}

// fixed returns a body that is the same in every version.
func fixed(s string) func(string) string { return func(string) string { return s } }

// withMeta returns a body whose {{meta}} is replaced by the version's _meta.
func withMeta(s string) func(string) string {
	return func(v string) string { return strings.ReplaceAll(s, "{{meta}}", metaFor(v)) }
}

// addCall is a valid tools/call of the add tool with id.
func addCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},{{meta}}}}`
}

// nested returns depth opening brackets, then as many closing ones.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// deepObject returns {"a":{"a":…}} nested depth times.
func deepObject(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// digits400 is a 400-digit number.
var digits400 = "9" + strings.Repeat("8", 398) + "7"

// hugeBatchSize is the number of elements of the huge batch.
const hugeBatchSize = 10000

// hugeBatch returns a batch of n tools/call requests of add, with ids 0 … n-1.
func hugeBatch(n int) func(string) string {
	return func(v string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.ReplaceAll(addCall(fmt.Sprint(i)), "{{meta}}", metaFor(v)))
		}
		b.WriteByte(']')
		return b.String()
	}
}

// hugeBatchAnswers are the answers to hugeBatch(n): a result for every id.
func hugeBatchAnswers(n int) []answer {
	out := make([]answer, n)
	for i := range out {
		out[i] = answer{0, fmt.Sprint(i)}
	}
	return out
}

// corpus is the bad input every transport is given.
var corpus = []badInput{
	// Malformed and truncated JSON: a parse error, with a null id.
	{name: "truncated object", whole: true, want: parseError,
		body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add",`)},
	{name: "truncated inside a string", whole: true, want: parseError, body: fixed(`{"jsonrpc":"2.0","id":1,"method":"tools/ca`)},
	{name: "not JSON", whole: true, want: parseError, body: fixed(`this is not JSON`)},
	{name: "single-quoted names", whole: true, want: parseError, body: fixed(`{'jsonrpc':'2.0','id':1,'method':'tools/list'}`)},
	{name: "trailing comma", whole: true, want: parseError, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}},}`)},
	{name: "two objects in one message", whole: true, want: parseError, body: withMeta(addCall("1") + addCall("2"))},
	{name: "nesting depth 100k of arrays", whole: true, want: parseError, body: fixed(nested(100000))},
	{name: "nesting depth 100k inside params", whole: true, want: parseError,
		body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":` + deepObject(100000) + `},{{meta}}}}`)},
	{name: "invalid UTF-8 in the method", whole: true, want: parseError, body: withMeta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\xff\",\"params\":{{{meta}}}}")},
	{name: "invalid UTF-8 in an argument", whole: true, want: parseError,
		body: withMeta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"s\":\"\xc3\x28\"},{{meta}}}}")},
	{name: "lone surrogate escape", whole: true, want: parseError,
		body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"\ud800"},{{meta}}}}`)},

	// JSON that is not a request: -32600, with the id when it can be read.
	{name: "a number", whole: true, want: invalidNoID, body: fixed(`42`)},
	{name: "null", whole: true, want: invalidNoID, body: fixed(`null`)},
	{name: "a string", whole: true, want: invalidNoID, body: fixed(`"tools/list"`)},
	{name: "empty object", whole: true, want: invalidNoID, body: fixed(`{}`)},
	{name: "empty batch", whole: true, want: invalidNoID, body: fixed(`[]`)},
	{name: "jsonrpc member missing", whole: true, want: invalidID1, body: withMeta(`{"id":1,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "jsonrpc 1.0", whole: true, want: invalidID1, body: withMeta(`{"jsonrpc":"1.0","id":1,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "jsonrpc as a number", whole: true, want: invalidID1, body: withMeta(`{"jsonrpc":2.0,"id":1,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "case-variant JSONRPC member", whole: true, want: invalidID1, body: withMeta(`{"JSONRPC":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "case-variant Method member", whole: true, want: invalidID1, body: withMeta(`{"jsonrpc":"2.0","id":1,"Method":"tools/list","params":{{{meta}}}}`)},
	{name: "method is a number", whole: true, want: invalidID1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":7,"params":{{{meta}}}}`)},
	{name: "duplicate id member", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "duplicate method member", whole: true, want: invalidID1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{{{meta}}}}`)},
	{name: "duplicate member inside params", whole: true, want: invalidID1,
		body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","name":"echo","arguments":{},{{meta}}}}`)},
	{name: "id is an object", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":{"n":1},"method":"tools/list","params":{{{meta}}}}`)},
	{name: "id is an array", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":[1],"method":"tools/list","params":{{{meta}}}}`)},
	{name: "id is a boolean", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":true,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "id is a fraction", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":1.5,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "id is null", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "id is a 400-digit number", whole: true, want: invalidNoID, body: withMeta(`{"jsonrpc":"2.0","id":` + digits400 + `,"method":"tools/list","params":{{{meta}}}}`)},
	{name: "params is a string", whole: true, want: invalidID1, body: fixed(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"all"}`)},
	{name: "params is a number", whole: true, want: invalidID1, body: fixed(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":3}`)},

	// Requests the server reads but cannot serve.
	{name: "unknown method", want: []answer{{jsonrpc.CodeMethodNotFound, "1"}}, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/destroy","params":{{{meta}}}}`)},
	{name: "params is an array", want: invalidParams1, body: fixed(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}`)},
	{name: "tool name is a number", want: invalidParams1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5,"arguments":{},{{meta}}}}`)},
	{name: "tool name missing", want: invalidParams1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{},{{meta}}}}`)},
	{name: "case-variant Name member", want: invalidParams1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"add","arguments":{},{{meta}}}}`)},
	{name: "unknown tool", want: invalidParams1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{},{{meta}}}}`)},
	{name: "arguments is a string", want: invalidParams1, body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":"x",{{meta}}}}`)},
	// A number beyond float64 is refused by schema validation: a tool
	// error from 2025-11-25 on (SEP-1303), -32602 before.
	{name: "a 400-digit number argument is refused by name", resultHas: "beyond the range of a 64-bit float",
		wantAt: func(v string) []answer {
			if v < mcp.Version20251125 {
				return invalidParams1
			}
			return []answer{{0, "1"}}
		},
		body: withMeta(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"n":` + digits400 + `},{{meta}}}}`)},
	{name: "unknown notification", body: fixed(`{"jsonrpc":"2.0","method":"notifications/nothing"}`)},
	{name: "response nobody asked for", response: true, body: fixed(`{"jsonrpc":"2.0","id":"unasked","result":{}}`)},

	// Batches.
	{name: "batch of a request, an invalid element, a notification and a number", batch: true,
		want: []answer{{0, `"b1"`}, {jsonrpc.CodeInvalidRequest, `"b2"`}, {jsonrpc.CodeInvalidRequest, "null"}},
		body: withMeta(`[` + addCall(`"b1"`) + `,{"jsonrpc":"1.0","id":"b2","method":"tools/list"},` +
			`{"jsonrpc":"2.0","method":"notifications/nothing"},5]`)},
	{name: "batch of invalid elements only", batch: true, want: []answer{{jsonrpc.CodeInvalidRequest, "null"}, {jsonrpc.CodeInvalidRequest, "7"}},
		body: fixed(`[1,{"id":7}]`)},
	{name: "batch of notifications only", batch: true, body: fixed(`[{"jsonrpc":"2.0","method":"notifications/nothing"},{"jsonrpc":"2.0","method":"notifications/other"}]`)},
	{name: "batch of 10k requests", batch: true, busyAllowed: true, want: hugeBatchAnswers(hugeBatchSize), body: hugeBatch(hugeBatchSize)},
}

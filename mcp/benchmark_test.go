package mcp

import (
	"testing"

	"github.com/go-json-experiment/json"
)

// The per-call hot path: a modern tools/call request in, a result out.

func BenchmarkDecodeModernCallToolParams(b *testing.B) {
	raw := []byte(toolCallParamsWithProgressToken)
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := json.Unmarshal(raw, &p); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Meta.ProtocolVersion(); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Meta.ClientCapabilities(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeCallToolResult(b *testing.B) {
	r := &CallToolResult{
		Result:            Result{ResultType: ResultComplete},
		Content:           Contents{&TextContent{Text: "Current weather in New York: 72°F, partly cloudy"}},
		StructuredContent: []byte(`{"temperature":22.5,"conditions":"Partly cloudy"}`),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeTextResult encodes the answer of a tool that returns one
// plain text block, as most do.
func BenchmarkEncodeTextResult(b *testing.B) {
	r := &CallToolResult{Content: Contents{&TextContent{Text: "echo: hello there 12345"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeCallToolResult(b *testing.B) {
	raw := []byte(`{"resultType":"complete","content":[{"type":"text","text":"Current weather in New York: 72°F"},
		{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"structuredContent":{"temperature":22.5}}`)
	b.ReportAllocs()
	for b.Loop() {
		var r CallToolResult
		if err := json.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// relatedTaskBenchResult is a tool result with no _meta, as a legacy
// task's tasks/result answers it.
var relatedTaskBenchResult = []byte(`{"content":[{"type":"text","text":"hello, world"}],"structuredContent":{"n":1,"list":[1,2,3]},"isError":false}`)

// BenchmarkWithRelatedTask adds the related task to a tool result with no
// _meta.
func BenchmarkWithRelatedTask(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WithRelatedTask(relatedTaskBenchResult, "LFZZKAIOO26OTNGNN6NEACDFAA"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendRelatedTask adds the related task to a tool result with
// no _meta into a buffer of the right size, checked and compacted, as
// tasks/result does for every legacy task; compare it with
// BenchmarkWithRelatedTask followed by json.Marshal's check of the answer.
func BenchmarkAppendRelatedTask(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buf := make([]byte, 0, len(relatedTaskBenchResult)+100)
		if _, err := AppendRelatedTask(buf, relatedTaskBenchResult, "LFZZKAIOO26OTNGNN6NEACDFAA"); err != nil {
			b.Fatal(err)
		}
	}
}

// The list results go through a MarshalJSONTo/UnmarshalJSONFrom (see
// stdjson.go); a tools/list page of 20 tools in the modern form.

func listToolsPage() *ListToolsResult {
	r := &ListToolsResult{
		Result: Result{ResultType: ResultComplete},
		Cache:  &CacheableResult{TTLMs: 60000, CacheScope: CachePublic},
	}
	for i := range 20 {
		r.Tools = append(r.Tools, Tool{
			Name:        "tool_" + string(rune('a'+i)),
			Description: "Does one thing well and reports what it did.",
			InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		})
	}
	return r
}

func BenchmarkEncodeListToolsResult(b *testing.B) {
	r := listToolsPage()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeListToolsResult(b *testing.B) {
	raw, err := json.Marshal(listToolsPage())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var r ListToolsResult
		if err := json.Unmarshal(raw, &r); err != nil {
			b.Fatal(err)
		}
	}
}

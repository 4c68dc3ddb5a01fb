package mcp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

func TestContentBlockExamplesRoundTrip(t *testing.T) {
	// Spec examples for each block type (2026-07-28 schema examples).
	tests := []struct {
		wire string
		typ  string
	}{
		{`{"type":"text","text":"Tool result text"}`, ContentTypeText},
		{`{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
		   "mimeType":"image/png","annotations":{"audience":["user"],"priority":0.9}}`, ContentTypeImage},
		{`{"type":"audio","data":"UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=","mimeType":"audio/wav"}`, ContentTypeAudio},
		{`{"type":"resource_link","uri":"file:///project/src/main.rs","name":"main.rs",
		   "description":"Primary application entry point","mimeType":"text/x-rust"}`, ContentTypeResourceLink},
		{`{"type":"resource","resource":{"uri":"file:///project/src/main.rs","mimeType":"text/x-rust",
		   "text":"fn main() {\n    println!(\"Hello world!\");\n}"},
		   "annotations":{"audience":["user","assistant"],"priority":0.7,"lastModified":"2025-05-03T14:30:00Z"}}`, ContentTypeResource},
		{`{"type":"resource","resource":{"uri":"file:///example.png","mimeType":"image/png",
		   "blob":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="},
		   "_meta":{"x.example/k":1}}`, ContentTypeResource},
	}
	for _, tt := range tests {
		cs := roundTrip[Contents](t, "["+tt.wire+"]", "")
		if len(*cs) != 1 || (*cs)[0].Type() != tt.typ {
			t.Errorf("%s decoded as %#v", tt.wire, *cs)
		}
	}
}

func TestContentsDecodeToTypedBlocks(t *testing.T) {
	var cs Contents
	err := json.Unmarshal([]byte(`[
		{"type":"text","text":"hi","_meta":{"a":true}},
		{"type":"image","data":"AQID","mimeType":"image/png"},
		{"type":"resource","resource":{"uri":"u","blob":"AQID"}},
		{"type":"resource","resource":{"uri":"v","text":""}},
		{"type":"resource_link","uri":"file:///a","name":"a","size":0,"icons":[{"src":"data:,"}]}
	]`), &cs)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := cs[0].(*TextContent); !ok || tc.Text != "hi" || !tc.Meta.Has("a") {
		t.Errorf("block 0 = %#v", cs[0])
	}
	if ic, ok := cs[1].(*ImageContent); !ok || !bytes.Equal(ic.Data, []byte{1, 2, 3}) {
		t.Errorf("block 1 = %#v, want base64 decoded", cs[1])
	}
	if er, ok := cs[2].(*EmbeddedResource); !ok {
		t.Errorf("block 2 = %#v", cs[2])
	} else if b, ok := er.Resource.(*BlobResourceContents); !ok || !bytes.Equal(b.Blob, []byte{1, 2, 3}) {
		t.Errorf("block 2 resource = %#v", er.Resource)
	}
	if er, ok := cs[3].(*EmbeddedResource); !ok {
		t.Errorf("block 3 = %#v", cs[3])
	} else if tr, ok := er.Resource.(*TextResourceContents); !ok || tr.Text != "" {
		t.Errorf("empty text contents decoded as %#v", er.Resource)
	}
	if rl, ok := cs[4].(*ResourceLink); !ok || rl.Size == nil || *rl.Size != 0 || len(rl.Icons) != 1 {
		t.Errorf("block 4 = %#v", cs[4])
	}
	// Size 0 is kept on the way out.
	assertSameJSON(t, encode(t, cs[4]), `{"type":"resource_link","uri":"file:///a","name":"a","size":0,"icons":[{"src":"data:,"}]}`)
}

func TestContentsRejectUnknownAndSamplingOnlyTypes(t *testing.T) {
	for _, tt := range []struct{ wire, wantInErr string }{
		{`[{"type":"video","data":"AA=="}]`, `"video" is not one of text, image, audio, resource_link, resource`},
		{`[{"type":"tool_use","id":"1","name":"n","input":{}}]`, `"tool_use" is not one of`},
		{`[{"text":"no type"}]`, `"" is not one of`},
		{`[{"type":"resource"}]`, `has no resource member`},
		{`[{"type":"resource","resource":{"uri":"u"}}]`, `neither a text nor a blob`},
		{`[{"type":"resource","resource":{"uri":"u","text":"a","blob":"AA=="}}]`, `both text and blob`},
		{`[{"type":"image","data":"not base64!","mimeType":"image/png"}]`, `base64`},
		{`{"type":"text","text":"not an array"}`, `want an array`},
		{`[1]`, ``},
	} {
		var cs Contents
		err := json.Unmarshal([]byte(tt.wire), &cs)
		if err == nil {
			t.Errorf("%s decoded as %#v, want an error", tt.wire, cs)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantInErr) {
			t.Errorf("%s: error %q does not mention %q", tt.wire, err, tt.wantInErr)
		}
	}
}

func TestContentsEncodeEmptyAndRejectNil(t *testing.T) {
	if got := string(encode(t, Contents(nil))); got != `[]` {
		t.Errorf("nil Contents = %s, want []", got)
	}
	if _, err := json.Marshal(Contents{&TextContent{Text: "a"}, nil}); err == nil {
		t.Error("a nil block encoded without error")
	}
	if _, err := json.Marshal(&EmbeddedResource{}); err == nil {
		t.Error("an embedded resource without contents encoded without error")
	}
	var cs Contents
	if err := json.Unmarshal([]byte(`null`), &cs); err != nil || cs != nil {
		t.Errorf("null decoded as %#v, %v", cs, err)
	}
}

func TestRequiredContentMembersAlwaysEncoded(t *testing.T) {
	assertSameJSON(t, encode(t, &TextContent{}), `{"type":"text","text":""}`)
	assertSameJSON(t, encode(t, &ImageContent{}), `{"type":"image","data":"","mimeType":""}`)
	assertSameJSON(t, encode(t, &ToolResultContent{ToolUseID: "c"}), `{"type":"tool_result","toolUseId":"c","content":[]}`)
	assertSameJSON(t, encode(t, &EmbeddedResource{Resource: &TextResourceContents{URI: "u"}}),
		`{"type":"resource","resource":{"uri":"u","text":""}}`)
}

func TestBlockDecodedDirectlyChecksType(t *testing.T) {
	var tc TextContent
	if err := json.Unmarshal([]byte(`{"type":"text","text":"a"}`), &tc); err != nil || tc.Text != "a" {
		t.Errorf("TextContent = %+v, %v", tc, err)
	}
	if err := json.Unmarshal([]byte(`{"type":"image","data":"","mimeType":"x"}`), &tc); err == nil {
		t.Error("an image block decoded into TextContent")
	}
	var tu ToolUseContent
	if err := json.Unmarshal([]byte(`{"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}}`), &tu); err != nil ||
		tu.ID != "call_abc123" || tu.Name != "get_weather" {
		t.Errorf("ToolUseContent = %+v, %v", tu, err)
	}
}

func TestSamplingContentsSingleOrArray(t *testing.T) {
	// Spec examples: SamplingMessage/single-content-block and multiple-content-blocks.
	m := roundTrip[SamplingMessage](t, `{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}`, "")
	if len(m.Content) != 1 || m.Content[0].Type() != ContentTypeText {
		t.Errorf("single block decoded as %#v", m.Content)
	}
	m = roundTrip[SamplingMessage](t, `{"role":"user","content":[
	  {"type":"tool_result","toolUseId":"call_123","content":[{"type":"text","text":"Result 1"}]},
	  {"type":"tool_result","toolUseId":"call_456","content":[{"type":"text","text":"Result 2"}]}]}`, "")
	if tr, ok := m.Content[1].(*ToolResultContent); !ok || tr.ToolUseID != "call_456" || len(tr.Content) != 1 {
		t.Errorf("tool result decoded as %#v", m.Content[1])
	}
	// One block in an array encodes as a bare block, which legacy peers accept.
	roundTrip[SamplingMessage](t, `{"role":"assistant","content":[{"type":"text","text":"x"}]}`,
		`{"role":"assistant","content":{"type":"text","text":"x"}}`)
	assertSameJSON(t, encode(t, &SamplingMessage{Role: RoleUser}), `{"role":"user","content":[]}`)

	var bad SamplingMessage
	err := json.Unmarshal([]byte(`{"role":"user","content":{"type":"resource_link","uri":"u","name":"n"}}`), &bad)
	if err == nil || !strings.Contains(err.Error(), `"resource_link" is not one of text, image, audio, tool_use, tool_result`) {
		t.Errorf("resource_link in a sampling message: err = %v", err)
	}
}

func TestPromptMessageHoldsOneBlock(t *testing.T) {
	r := roundTrip[GetPromptResult](t, `{"resultType":"complete","description":"Code review prompt","messages":[
	  {"role":"user","content":{"type":"text","text":"Please review this Python code:\ndef hello():\n    print('world')"}},
	  {"role":"assistant","content":{"type":"resource","resource":{"uri":"file:///a.py","text":"x"}}}]}`, "")
	if r.Messages[1].Role != RoleAssistant || r.Messages[1].Content.Type() != ContentTypeResource {
		t.Errorf("messages decoded as %#v", r.Messages)
	}
	var m PromptMessage
	if err := json.Unmarshal([]byte(`{"role":"user"}`), &m); err == nil {
		t.Error("a prompt message without content decoded")
	}
	if err := json.Unmarshal([]byte(`{"role":"user","content":{"type":"tool_use","id":"1","name":"n","input":{}}}`), &m); err == nil {
		t.Error("a tool_use block decoded into a prompt message")
	}
	if _, err := json.Marshal(&PromptMessage{Role: RoleUser}); err == nil {
		t.Error("a prompt message without content encoded")
	}
}

func TestResourceContentsListDecodesTextAndBlob(t *testing.T) {
	r := roundTrip[ReadResourceResult](t, `{"resultType":"complete","contents":[
	  {"uri":"file:///project/src/main.rs","mimeType":"text/x-rust","text":"fn main() {}"},
	  {"uri":"file:///example.png","mimeType":"image/png","blob":"AQID"}],
	  "ttlMs":60000,"cacheScope":"private"}`, "")
	if _, ok := r.Contents[0].(*TextResourceContents); !ok {
		t.Errorf("contents[0] = %#v", r.Contents[0])
	}
	if b, ok := r.Contents[1].(*BlobResourceContents); !ok || !bytes.Equal(b.Blob, []byte{1, 2, 3}) {
		t.Errorf("contents[1] = %#v", r.Contents[1])
	}
	if r.Cache == nil || r.Cache.CacheScope != CachePrivate {
		t.Errorf("cache = %+v", r.Cache)
	}
	assertSameJSON(t, encode(t, &ReadResourceResult{}), `{"contents":[]}`)
}

func TestEveryBlockTypeDecodesDirectly(t *testing.T) {
	tests := []struct {
		wire string
		dst  any
	}{
		{`{"type":"image","data":"AQID","mimeType":"image/png"}`, &ImageContent{}},
		{`{"type":"audio","data":"AQID","mimeType":"audio/wav"}`, &AudioContent{}},
		{`{"type":"resource_link","uri":"file:///a","name":"a"}`, &ResourceLink{}},
		{`{"type":"resource","resource":{"uri":"u","text":"t"}}`, &EmbeddedResource{}},
		{`{"type":"tool_result","toolUseId":"call_abc123","content":[{"type":"text","text":"Weather in Paris: 18°C, partly cloudy"}]}`, &ToolResultContent{}},
		{`{"type":"tool_use","id":"1","name":"n","input":{}}`, &ToolUseContent{}},
		{`{"type":"text","text":"t"}`, &TextContent{}},
	}
	for i, tt := range tests {
		if err := json.Unmarshal([]byte(tt.wire), tt.dst); err != nil {
			t.Errorf("%s into %T: %v", tt.wire, tt.dst, err)
			continue
		}
		assertSameJSON(t, encode(t, tt.dst), tt.wire)
		// Every other type is refused.
		other := tests[(i+1)%len(tests)].wire
		if err := json.Unmarshal([]byte(other), tt.dst); err == nil {
			t.Errorf("%s decoded into %T", other, tt.dst)
		}
	}
	var er EmbeddedResource
	if err := json.Unmarshal([]byte(`{"type":"resource"}`), &er); err == nil {
		t.Error("an embedded resource without contents decoded")
	}
}

func TestBlockTypesReportTheirType(t *testing.T) {
	content := map[Content]string{&TextContent{}: "text", &ImageContent{}: "image", &AudioContent{}: "audio",
		&ResourceLink{}: "resource_link", &EmbeddedResource{}: "resource"}
	for c, want := range content {
		if c.Type() != want {
			t.Errorf("%T.Type() = %q, want %q", c, c.Type(), want)
		}
	}
	sampling := map[SamplingContent]string{&TextContent{}: "text", &ImageContent{}: "image", &AudioContent{}: "audio",
		&ToolUseContent{}: "tool_use", &ToolResultContent{}: "tool_result"}
	for c, want := range sampling {
		if c.Type() != want {
			t.Errorf("%T.Type() = %q, want %q", c, c.Type(), want)
		}
	}
}

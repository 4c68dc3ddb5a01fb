package mcp

import (
	stdjson "encoding/json"
	"testing"
)

func TestCompletionExamples(t *testing.T) {
	// Spec example: CompleteRequestParams/prompt-argument-completion-with-context.
	p := roundTrip[CompleteParams](t, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
	  "ref":{"type":"ref/prompt","name":"code_review"},"argument":{"name":"framework","value":"fla"},
	  "context":{"arguments":{"language":"python"}}}`, "")
	if p.Ref.Type != ReferencePrompt || p.Context.Arguments["language"] != "python" {
		t.Errorf("params = %+v", p)
	}
	p = roundTrip[CompleteParams](t, `{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":"sr"}}`, "")
	if p.Ref.Type != ReferenceResource || p.Context != nil {
		t.Errorf("params = %+v", p)
	}
	// Spec examples: CompleteResult/*.
	r := roundTrip[CompleteResult](t, `{"resultType":"complete","completion":{"values":["python","pytorch","pyside"],"total":10,"hasMore":true}}`, "")
	if *r.Completion.Total != 10 || !*r.Completion.HasMore {
		t.Errorf("completion = %+v", r.Completion)
	}
	roundTrip[CompleteResult](t, `{"completion":{"values":["flask"],"total":1}}`, "")
	// An explicit false is kept, under both encoders.
	r = roundTrip[CompleteResult](t, `{"completion":{"values":["flask"],"total":1,"hasMore":false}}`, "")
	if r.Completion.HasMore == nil || *r.Completion.HasMore {
		t.Errorf("hasMore false decoded as %v", r.Completion.HasMore)
	}
	if std, err := stdjson.Marshal(r); err != nil || string(std) != `{"completion":{"values":["flask"],"total":1,"hasMore":false}}` {
		t.Errorf("encoding/json encodes %s, %v; want hasMore false kept", std, err)
	}
	assertSameJSON(t, encode(t, &CompleteResult{}), `{"completion":{"values":[]}}`)
}

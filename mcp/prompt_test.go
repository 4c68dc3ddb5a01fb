package mcp

import "testing"

func TestPromptListAndGet(t *testing.T) {
	// Spec example: ListPromptsResult/prompts-list-with-cursor-and-ttl.
	r := roundTrip[ListPromptsResult](t, `{"resultType":"complete","prompts":[{"name":"code_review","title":"Request Code Review",
	  "description":"Asks the LLM to analyze code quality and suggest improvements",
	  "arguments":[{"name":"code","description":"The code to review","required":true}],
	  "icons":[{"src":"https://example.com/review-icon.svg","mimeType":"image/svg+xml","sizes":["any"]}]}],
	  "nextCursor":"next-page-cursor","ttlMs":600000,"cacheScope":"public"}`, "")
	if !r.Prompts[0].Arguments[0].Required {
		t.Errorf("argument = %+v", r.Prompts[0].Arguments[0])
	}
	// Spec example: GetPromptRequestParams/get-code-review-prompt.
	p := roundTrip[GetPromptParams](t, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	  "io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},
	  "name":"code_review","arguments":{"code":"def hello():\n    print('world')"}}`, "")
	if p.Arguments["code"] == "" {
		t.Errorf("arguments = %v", p.Arguments)
	}
}

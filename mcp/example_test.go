package mcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/weftmcp/weft/mcp"
)

// The mcp types encode under encoding/json exactly as weft sends them, so a
// result can be logged, cached or served by an API of one's own.
func ExampleCallToolResult_encodingJSON() {
	result := mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "72°F, partly cloudy"}}}
	b, err := json.Marshal(result)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))

	var back mcp.CallToolResult
	if err := json.Unmarshal(b, &back); err != nil {
		panic(err)
	}
	fmt.Println(back.Content[0].(*mcp.TextContent).Text)
	// Output:
	// {"content":[{"type":"text","text":"72°F, partly cloudy"}]}
	// 72°F, partly cloudy
}

// A 2025-11-25 tasks/result answer is the task's stored result with the
// related task in its _meta. AppendRelatedTask builds it into a buffer of
// one's own, checked and compacted whatever spacing the store kept.
func ExampleAppendRelatedTask() {
	stored := []byte("{\n  \"content\": [{\"type\": \"text\", \"text\": \"done\"}]\n}")
	answer, err := mcp.AppendRelatedTask(nil, stored, "786512e2")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(answer))
	// Output:
	// {"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}
}

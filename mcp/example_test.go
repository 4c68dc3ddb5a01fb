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

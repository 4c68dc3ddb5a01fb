package server

import (
	"context"
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// Content blocks a client's protocol version lacks (audio before
// 2025-03-26, resource_link before 2025-06-18) reach it as text blocks
// naming them, in a tool's result and in a prompt's messages, so that a
// client whose schema is strict does not refuse the whole result; newer
// clients get them as they are.
func TestContent_BlocksTheVersionLacksReachItAsText(t *testing.T) {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "media", Description: "Returns audio and a resource link."}, func(context.Context, *Request, struct{}) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: mcp.Contents{
			&mcp.TextContent{Text: "here"},
			&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
			&mcp.ResourceLink{Resource: mcp.Resource{URI: "test://a", Name: "a"}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "listen"}, func(context.Context, *Request, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: &mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"}},
			{Role: mcp.RoleUser, Content: &mcp.ResourceLink{Resource: mcp.Resource{URI: "test://a", Name: "a"}}},
		}}, nil
	})
	for _, v := range legacyVersions {
		c := open(t, s, v, `{}`, nil)
		for _, res := range []string{string(c.mustCall("tools/call", `{"name":"media"}`)), string(c.mustCall("prompts/get", `{"name":"listen"}`))} {
			if strings.Contains(res, `"audio"`) != mcp.SupportsAudioContent(v) || strings.Contains(res, `"resource_link"`) != mcp.SupportsResourceLinks(v) {
				t.Errorf("%s: %s; want only the blocks this version has", v, res)
			}
			if !mcp.SupportsResourceLinks(v) && !strings.Contains(res, `test://a`) {
				t.Errorf("%s: %s; want the resource link's URI in a text block", v, res)
			}
			if !mcp.SupportsAudioContent(v) && !strings.Contains(res, `audio/wav`) {
				t.Errorf("%s: %s; want the audio block named in a text block", v, res)
			}
		}
	}
}

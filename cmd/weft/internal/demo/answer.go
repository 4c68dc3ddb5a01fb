package demo

import (
	"context"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// autoAnswer answers the server's questions the way a person might, and
// shows question and answer on screen: every boolean field yes, every
// other field its default when it has one.
func autoAnswer(scr *screen) client.ElicitHandler {
	return func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		content := mcp.JSONObject{}
		answer := "accept"
		if p.RequestedSchema != nil {
			for _, f := range p.RequestedSchema.Properties {
				switch {
				case f.Schema.Type == "boolean":
					content[f.Name] = []byte("true")
					answer = "yes"
				case len(f.Schema.Default) > 0:
					content[f.Name] = f.Schema.Default
				}
			}
		}
		scr.status(string(mcp.TaskInputRequired))
		scr.aside("the server asks: %q → answering %s (automatically, for the demo)", p.Message, answer)
		return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
	}
}

package client

import (
	"github.com/weftmcp/weft/mcp"
)

// usableTools returns the tools of a tools/list page that a client may
// offer: on a modern session, a tool whose x-mcp-header annotations break
// the rules is left out, as the protocol requires of clients, with a
// warning naming the tool and the broken rule. Legacy versions define no
// such annotation, so their tools are all kept.
func (s *Session) usableTools(tools []mcp.Tool) []mcp.Tool {
	if !s.modern() {
		return tools
	}
	kept := tools[:0:0]
	for _, t := range tools {
		if err := checkHeaderAnnotations(t.InputSchema); err != nil {
			s.client.logger.Warn("client: leaving out a listed tool whose x-mcp-header annotations are invalid; the server must fix its inputSchema",
				"tool", t.Name, "problem", err)
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// checkHeaderAnnotations reports why the x-mcp-header annotations of an
// inputSchema are invalid, or nil when they are valid (or absent); see
// mcp.ParamHeaders for the rules.
func checkHeaderAnnotations(inputSchema []byte) error {
	_, err := mcp.ParamHeaders(inputSchema)
	return err
}

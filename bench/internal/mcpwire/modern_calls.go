package mcpwire

import (
	"context"
	"encoding/json"
)

// modernMeta is the _meta of a plain modern request: the version, client
// capabilities that declare no extension (so the server answers the call
// itself, never with a task), and the client's name.
var modernMeta = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"weft-bench","version":"1.0.0"}}`)

// ModernCalls makes every echo call a plain tools/call of ModernVersion, its
// _meta carrying what a modern request must: the figure a task life on the
// extension surface, whose every request carries that _meta too, is set
// beside. It is safe for concurrent use.
type ModernCalls struct{ s Caller }

// NewModernCalls makes the echo calls of s, which must send modern requests
// (NewModernStdio, NewModernHTTP).
func NewModernCalls(s Caller) *ModernCalls { return &ModernCalls{s: s} }

// Echo calls the echo tool with text. It returns nil only when the answer is
// a successful result whose only content is a text block equal to text.
func (m *ModernCalls) Echo(ctx context.Context, text string) error {
	params := extensionCallParams{echoParams: echoParams{Name: ToolName, Arguments: echoArgs{Text: text}}, Meta: modernMeta}
	result, err := m.s.CallNamed(ctx, "tools/call", ToolName, params)
	if err != nil {
		return err
	}
	return checkEcho(result, text)
}

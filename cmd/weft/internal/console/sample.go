package console

import (
	"fmt"
	"strings"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// CodeUserRejected is the error code of a sampling request the user
// declined, as the specification's example of it has it.
const CodeUserRejected = -1

// RejectedSampling is the error for a sampling request the user declined.
func RejectedSampling() *jsonrpc.Error {
	return jsonrpc.NewError(CodeUserRejected, "User rejected sampling request")
}

// Sample shows a person the server's sampling request (the system prompt
// and the messages) and reads their reply, one line, as the model's: the
// reply is the assistant's text. An empty reply, or the end of the input,
// rejects the request.
func (f *Form) Sample(p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	fmt.Fprintln(f.out, "\nThe server asks for a model's reply (sampling). You answer as the model.")
	if p.SystemPrompt != "" {
		fmt.Fprintf(f.out, "  system: %s\n", indent(p.SystemPrompt))
	}
	for _, m := range p.Messages {
		fmt.Fprintf(f.out, "  %s: %s\n", m.Role, indent(SamplingText(m.Content)))
	}
	line, err := f.line(fmt.Sprintf("  Reply (one line, at most %d tokens; Enter alone declines): ", p.MaxTokens))
	if err != nil || line == "" {
		return nil, RejectedSampling()
	}
	return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: line}},
		Model: "human", StopReason: "endTurn"}, nil
}

// SamplingText renders a sampling message's content for a person: text as
// it is, other blocks as a short description.
func SamplingText(cs mcp.SamplingContents) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
			continue
		}
		parts = append(parts, "["+c.Type()+" content]")
	}
	return strings.Join(parts, " ")
}

// indent indents the continuation lines of s to sit under its first.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

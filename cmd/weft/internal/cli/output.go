package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/mcp"
)

// outputFlags are the options every client command has.
type outputFlags struct {
	json     bool
	protocol string
}

// add declares --json and --protocol on cmd.
func (o *outputFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON even on a terminal")
	cmd.Flags().StringVar(&o.protocol, "protocol", "", "speak this MCP protocol version (such as 2025-11-25 or 2026-07-28) instead of the newest both sides know")
}

// human reports whether output is for a person: stdout is a terminal and
// --json was not given.
func (o *outputFlags) human(e *env) bool { return e.terminal && !o.json }

// printJSON writes v as indented JSON and a newline. MCP types are encoded
// with github.com/go-json-experiment/json, as they must be.
func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v, jsontext.WithIndent("  "))
	if err != nil {
		return fmt.Errorf("encoding the output as JSON: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// contentText renders content blocks for a person: text as it is, other
// blocks as a one-line description.
func contentText(cs mcp.Contents) string {
	var b strings.Builder
	for _, c := range cs {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[link to resource %s]", c.URI)
		case *mcp.EmbeddedResource:
			b.WriteString(resourceContentsText(c.Resource))
		default:
			fmt.Fprintf(&b, "[%s content]", c.Type())
		}
	}
	return b.String()
}

// resourceContentsText renders one resource's contents for a person.
func resourceContentsText(rc mcp.ResourceContents) string {
	switch rc := rc.(type) {
	case *mcp.TextResourceContents:
		return rc.Text
	case *mcp.BlobResourceContents:
		return fmt.Sprintf("[%s: %s, %d bytes]", rc.URI, rc.MIMEType, len(rc.Blob))
	}
	return fmt.Sprintf("[%T]", rc)
}

// ensureNewline writes s and a newline unless s ends in one.
func ensureNewline(w io.Writer, s string) {
	if strings.HasSuffix(s, "\n") {
		io.WriteString(w, s)
		return
	}
	fmt.Fprintln(w, s)
}

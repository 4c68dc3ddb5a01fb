package server

import (
	"fmt"
	"slices"

	"github.com/weftmcp/weft/mcp"
)

// contentsForVersion returns cs as a client of protocol version v can read
// them: cs itself when v has every kind of block (no copy), else a copy in
// which each block v lacks is a text block saying what it was. A client of
// an older version whose schema is strict refuses a whole result over one
// block of a kind it does not know; the text keeps what the model needs.
func contentsForVersion(cs mcp.Contents, v string) mcp.Contents {
	if v == "" || mcp.SupportsResourceLinks(v) {
		return cs // resource links came last: v has every kind
	}
	var out mcp.Contents
	for i, c := range cs {
		if d := contentForVersion(c, v); d != c {
			if out == nil {
				out = slices.Clone(cs)
			}
			out[i] = d
		}
	}
	if out == nil {
		return cs
	}
	return out
}

// contentForVersion returns c as a client of version v can read it: c
// itself, or, for a block v lacks (audio before 2025-03-26, resource_link
// before 2025-06-18), a text block naming it.
func contentForVersion(c mcp.Content, v string) mcp.Content {
	switch b := c.(type) {
	case *mcp.AudioContent:
		if v != "" && !mcp.SupportsAudioContent(v) {
			return &mcp.TextContent{Text: fmt.Sprintf("[audio (%s, %d bytes) left out: protocol version %s has no audio content]", b.MIMEType, len(b.Data), v)}
		}
	case *mcp.ResourceLink:
		if v != "" && !mcp.SupportsResourceLinks(v) {
			return &mcp.TextContent{Text: fmt.Sprintf("Resource %q: %s", b.Name, b.URI)}
		}
	}
	return c
}

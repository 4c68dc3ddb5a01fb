package client

import (
	"maps"

	"github.com/weftmcp/weft/mcp"
)

// withDefaults returns the result of an accepted form-mode elicitation with
// every field the user left out filled in from its default in the requested
// schema (SEP-1034), so the server sees the values the form showed. Fields
// the user answered are kept as they are; other results are returned
// unchanged. The handler's result is never modified: a filled-in result is
// a copy.
func withDefaults(p *mcp.ElicitParams, res *mcp.ElicitResult) *mcp.ElicitResult {
	if res.Action != mcp.ElicitAccept || p.EffectiveMode() != mcp.ElicitModeForm || p.RequestedSchema == nil {
		return res
	}
	var filled mcp.JSONObject
	for _, prop := range p.RequestedSchema.Properties {
		if prop.Schema.Default == nil {
			continue
		}
		if _, answered := res.Content[prop.Name]; answered {
			continue
		}
		if filled == nil {
			filled = make(mcp.JSONObject, len(res.Content)+1)
			maps.Copy(filled, res.Content)
		}
		filled[prop.Name] = prop.Schema.Default
	}
	if filled == nil {
		return res
	}
	out := *res
	out.Content = filled
	return &out
}

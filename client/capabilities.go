package client

import (
	"maps"

	"github.com/weftmcp/weft/mcp"
)

// capabilities returns the client capabilities the configured handlers
// declare at protocol version v, in the shape v defines.
func (o *Options) capabilities(v string) mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if o.CreateMessage != nil {
		caps.Sampling = &mcp.SamplingCapability{}
		if o.SamplingTools && mcp.SupportsSamplingTools(v) {
			caps.Sampling.Tools = mcp.JSONObject{}
		}
	}
	if mcp.SupportsElicitation(v) {
		switch {
		case mcp.SupportsURLElicitation(v) && (o.ElicitForm != nil || o.ElicitURL != nil):
			caps.Elicitation = &mcp.ElicitationCapability{}
			if o.ElicitForm != nil {
				caps.Elicitation.Form = mcp.JSONObject{}
			}
			if o.ElicitURL != nil {
				caps.Elicitation.URL = mcp.JSONObject{}
			}
		case o.ElicitForm != nil:
			// 2025-06-18: an empty object means form mode, the only one.
			caps.Elicitation = &mcp.ElicitationCapability{}
		}
	}
	if o.Tasks != nil && mcp.SupportsTasksV1(v) {
		caps.Tasks = o.hostedTaskCapability()
	}
	if o.ListRoots != nil {
		// Modern versions have no roots/list_changed notification.
		caps.Roots = &mcp.RootsCapability{ListChanged: mcp.IsLegacy(v)}
	}
	if len(o.Extensions) > 0 {
		caps.Extensions = maps.Clone(o.Extensions)
		delete(caps.Extensions, mcp.ExtensionTasks)
	}
	return caps
}

// hostedTaskCapability returns the 2025-11-25 tasks capability of a client
// that runs requests as tasks on Options.Tasks: tasks/list, tasks/cancel,
// and task-augmented sampling and elicitation where a handler serves them.
// Nil when no handler does.
func (o *Options) hostedTaskCapability() *mcp.ClientTasksCapability {
	var reqs mcp.ClientTaskRequests
	if o.CreateMessage != nil {
		reqs.Sampling = &mcp.SamplingTaskRequests{CreateMessage: mcp.JSONObject{}}
	}
	if o.ElicitForm != nil || o.ElicitURL != nil {
		reqs.Elicitation = &mcp.ElicitationTaskRequests{Create: mcp.JSONObject{}}
	}
	if reqs.Sampling == nil && reqs.Elicitation == nil {
		return nil
	}
	return &mcp.ClientTasksCapability{List: mcp.JSONObject{}, Cancel: mcp.JSONObject{}, Requests: &reqs}
}

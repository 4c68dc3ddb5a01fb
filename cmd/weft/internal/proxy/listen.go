package proxy

import (
	"context"

	"github.com/weftmcp/weft/mcp"
)

// listenForListChanges opens the subscriptions/listen stream on which a
// modern wrapped server announces that its lists changed (a legacy one
// announces them on its session, unasked). The stream lasts as long as the
// wrapped session; its announcements start a resync like a legacy
// server's. A wrapped server that refuses it is still proxied, with the
// lists it had when the proxy connected; a warning says so.
func (p *Proxy) listenForListChanges(ctx context.Context) {
	if !p.wrapped.IsModern() {
		return
	}
	caps := p.wrapped.ServerCapabilities()
	var filter mcp.SubscriptionFilter
	filter.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	filter.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	filter.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	if !filter.ToolsListChanged && !filter.PromptsListChanged && !filter.ResourcesListChanged {
		return
	}
	if _, err := p.wrapped.Listen(ctx, filter); err != nil {
		p.logger.Warn("proxy: the wrapped server refused to announce changes to its lists; the proxy offers them as they are now", "error", err)
	}
}

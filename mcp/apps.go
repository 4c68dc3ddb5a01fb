package mcp

import (
	"maps"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
)

// MCP Apps (SEP-1865, ext-apps 2026-01-26): a tool names a ui:// resource
// holding an HTML page that hosts supporting the extension render in a
// sandboxed frame next to the tool's result.

// ExtensionUI identifies the MCP Apps extension. A client (host) declares
// it with the MIME types it renders (UIClientCapability); a server declares
// it with an empty settings object.
const ExtensionUI = "io.modelcontextprotocol/ui"

// MIMEAppHTML is the MIME type of an MCP App's HTML resource.
const MIMEAppHTML = "text/html;profile=mcp-app"

// UIScheme is the URI scheme of MCP App resources.
const UIScheme = "ui://"

// UIClientCapability returns the settings a host declares under
// ExtensionUI: the MIME types it renders, MIMEAppHTML when none are given.
func UIClientCapability(mimeTypes ...string) JSONObject {
	if len(mimeTypes) == 0 {
		mimeTypes = []string{MIMEAppHTML}
	}
	raw, _ := json.Marshal(mimeTypes) // a []string always encodes
	return JSONObject{"mimeTypes": raw}
}

// RendersApps reports whether the client declared the MCP Apps extension
// with MIMEAppHTML among its mimeTypes: then a tool's UI may be shown;
// otherwise only the tool's content is.
func (c ClientCapabilities) RendersApps() bool {
	settings, ok := c.Extensions[ExtensionUI]
	if !ok {
		return false
	}
	var types []string
	if json.Unmarshal(settings["mimeTypes"], &types) != nil {
		return false
	}
	return slices.Contains(types, MIMEAppHTML)
}

// UIVisibility says who may call a tool that has a UI.
type UIVisibility string

// Tool visibilities; a tool's default is both.
const (
	// UIVisibleToModel: the tool is in the agent's tool list.
	UIVisibleToModel UIVisibility = "model"
	// UIVisibleToApp: an app from the same server may call the tool.
	UIVisibleToApp UIVisibility = "app"
)

// UIToolMeta is a tool's _meta.ui: the resource that renders its results.
type UIToolMeta struct {
	// ResourceURI is the ui:// resource of the tool's app.
	ResourceURI string `json:"resourceUri"`
	// Visibility is who may call the tool; empty means model and app.
	Visibility []UIVisibility `json:"visibility,omitempty"`
}

// UIResourceMeta is an app resource's _meta.ui: the sandbox the host
// should give it.
type UIResourceMeta struct {
	// CSP lists the origins the page may reach; absent means none.
	CSP *UICSP `json:"csp,omitzero"`
	// Permissions are the browser features the page asks for.
	Permissions *UIPermissions `json:"permissions,omitzero"`
	// Domain is a dedicated sandbox origin, in the host's own format.
	Domain string `json:"domain,omitempty"`
	// PrefersBorder asks for a border and background (true) or none
	// (false); nil leaves it to the host.
	PrefersBorder *bool `json:"prefersBorder,omitzero"`
}

// UICSP is an app's Content Security Policy, by kind of origin.
type UICSP struct {
	// ConnectDomains: origins for fetch, XHR and WebSocket (connect-src).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains: origins for scripts, styles, images, fonts and media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains: origins for nested frames (frame-src).
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains: allowed base URIs (base-uri).
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// UIPermissions are the browser features an app asks for; a non-nil
// member asks for it. Hosts may refuse any.
type UIPermissions struct {
	Camera         JSONObject `json:"camera,omitzero"`
	Microphone     JSONObject `json:"microphone,omitzero"`
	Geolocation    JSONObject `json:"geolocation,omitzero"`
	ClipboardWrite JSONObject `json:"clipboardWrite,omitzero"`
}

// metaUI is the _meta key of a tool's and a resource's MCP Apps metadata.
const metaUI = "ui"

// UI returns the tool's _meta.ui, and whether the tool has a UI (a
// ui:// resourceUri).
func (t *Tool) UI() (*UIToolMeta, bool) {
	var ui UIToolMeta
	if !t.Meta.Has(metaUI) || t.Meta.Decode(metaUI, &ui) != nil || !strings.HasPrefix(ui.ResourceURI, UIScheme) {
		return nil, false
	}
	return &ui, true
}

// SetUI sets the tool's _meta.ui, keeping its other _meta members (in a
// new map: the old one may be shared).
func (t *Tool) SetUI(ui *UIToolMeta) error {
	m := maps.Clone(t.Meta)
	if err := m.Set(metaUI, ui); err != nil {
		return err
	}
	t.Meta = m
	return nil
}

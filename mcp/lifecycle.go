package mcp

// Implementation describes a client or server program: clientInfo and
// serverInfo in the legacy handshake, _meta[MetaClientInfo] and
// _meta[MetaServerInfo] in the modern era. Self-reported and unverified.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`       // 2025-06-18+
	Version     string `json:"version"`               //
	Description string `json:"description,omitempty"` // 2025-11-25+
	WebsiteURL  string `json:"websiteUrl,omitempty"`  // 2025-11-25+
	Icons       []Icon `json:"icons,omitempty"`       // 2025-11-25+
}

// Icon is an optionally sized image a user interface may show (2025-11-25+).
type Icon struct {
	// Src is an http(s) URL or a data: URI.
	Src      string `json:"src"`
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are "WxH" strings such as "48x48", or "any" for scalable formats.
	Sizes []string  `json:"sizes,omitempty"`
	Theme IconTheme `json:"theme,omitempty"`
}

// IconTheme is the background an icon is designed for.
type IconTheme string

// Icon themes.
const (
	IconThemeLight IconTheme = "light"
	IconThemeDark  IconTheme = "dark"
)

// InitializeParams are the params of initialize (legacy handshake).
type InitializeParams struct {
	RequestParams
	// ProtocolVersion is the newest version the client supports.
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	Result
	// ProtocolVersion is the version the session speaks (see Negotiate).
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	// Instructions describe how to use the server, e.g. for a system prompt.
	Instructions string `json:"instructions,omitempty"`
}

// DiscoverParams are the params of server/discover (modern).
type DiscoverParams = RequestParams

// DiscoverResult answers server/discover: what the server speaks and offers.
// It is cacheable, so Cache must be set.
type DiscoverResult struct {
	Result
	Cache *CacheableResult `json:",inline"`
	// SupportedVersions are the protocol versions the server implements.
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	// Instructions describe how to use the server, e.g. for a system prompt.
	Instructions string `json:"instructions,omitempty"`
}

package auth

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata
// document (RFC 9728) an MCP server publishes so that clients can find the
// authorization servers that issue tokens for it.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier: the canonical URL of the MCP
	// endpoint. Clients send it as the RFC 8707 resource parameter and the
	// tokens they get carry it as their audience.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuer identifiers of the authorization
	// servers that issue tokens for the resource.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported lists the scopes a client needs for basic use.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported lists how the resource accepts tokens; weft
	// accepts only the Authorization header ("header").
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name for the resource.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is a URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// DPoPSigningAlgValuesSupported lists the algorithms accepted for DPoP
	// proofs, when the resource takes DPoP-bound tokens (RFC 9449).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// DPoPBoundAccessTokensRequired says every token must be DPoP-bound.
	DPoPBoundAccessTokensRequired bool `json:"dpop_bound_access_tokens_required,omitempty"`
}

// AuthorizationServerMetadata is the subset of OAuth 2.0 Authorization Server
// Metadata (RFC 8414, and OpenID Connect Discovery) that MCP uses.
type AuthorizationServerMetadata struct {
	// Issuer is the authorization server's issuer identifier. A document is
	// only valid when it equals the identifier its URL was built from.
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string `json:"token_endpoint,omitempty"`
	// RegistrationEndpoint is the RFC 7591 dynamic client registration
	// endpoint, when the server offers it.
	RegistrationEndpoint  string `json:"registration_endpoint,omitempty"`
	JWKSURI               string `json:"jwks_uri,omitempty"`
	IntrospectionEndpoint string `json:"introspection_endpoint,omitempty"`
	RevocationEndpoint    string `json:"revocation_endpoint,omitempty"`

	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists the JWS algorithms the server
	// accepts for DPoP proofs (RFC 9449 section 5.1); a server that lists
	// any issues DPoP-bound tokens.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`

	// AuthorizationResponseIssParameterSupported says the server puts "iss"
	// in every authorization response (RFC 9207), so a response without it
	// must be rejected.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says the server accepts an HTTPS URL
	// naming a client ID metadata document as a client_id.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
}

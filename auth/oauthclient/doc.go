// Package oauthclient authorizes an MCP client to servers protected by OAuth
// 2.1, as the MCP authorization specification describes: discovery from a
// 401 (RFC 9728, RFC 8414), client registration (pre-registered, client ID
// metadata document, or RFC 7591), the authorization code grant with PKCE,
// RFC 8707 resource indicators and RFC 9207 issuer checks, refresh tokens,
// scope step-up, and the client credentials and JWT bearer grants;
// DPoP-bound tokens (RFC 9449) where both servers take them;
// and enterprise-managed authorization (SEP-990: an ID-JAG from the
// enterprise identity provider, presented with the JWT bearer grant).
//
// A [Client] holds the configuration and the secrets it obtains, keyed by
// authorization server. [Client.Transport] wraps an http.RoundTripper: give
// the result to the MCP transport's *http.Client and requests get access
// tokens (Bearer, or DPoP with a fresh proof each), with authorization run when a server answers 401 or 403
// insufficient_scope. The user's part of the authorization code grant is an
// [Authorizer]: [Headless] for automated clients and tests, [Loopback] for a
// browser on the same machine.
package oauthclient

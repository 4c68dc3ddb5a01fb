// Package auth protects an MCP server over HTTP as an OAuth 2.1 resource
// server (bearer tokens, DPoP-bound tokens with their proofs when
// [Config.DPoP] is set, RFC 9728 metadata, RFC 8707 audiences, per-tool
// scopes) and holds the OAuth types its client side, package oauthclient,
// shares with it.
//
// A server wires it in two steps: build a [ResourceServer] from a [Config]
// naming the MCP endpoint's canonical URL, its authorization servers and a
// [Verifier] (for example [NewJWTVerifier]), then serve
// [ResourceServer.Handler] around the MCP handler. Handlers read the caller
// with [PrincipalFrom] and [TokenInfoFrom], and demand more scopes with
// [RequireScopes] or [Authorize]; [WriteError] turns the resulting
// [*InsufficientScopeError] into the 403 step-up challenge.
package auth

package oauthclient

import (
	"errors"
	"fmt"
)

// Errors of the authorization flow. They are wrapped with details; test for
// them with errors.Is.
var (
	// ErrResourceMismatch: the protected resource metadata names a resource
	// the MCP endpoint is not part of, so tokens for it must not be sought.
	ErrResourceMismatch = errors.New("protected resource metadata is for a different resource")
	// ErrResponseIssuerMismatch: the authorization response's "iss" is not the
	// issuer of the authorization server the request went to, or is missing
	// although that server promised it (RFC 9207). The response may come
	// from a mix-up attack; its code is never redeemed.
	ErrResponseIssuerMismatch = errors.New("authorization response from the wrong issuer")
	// ErrStateMismatch: the authorization response's "state" is not the one
	// the client sent.
	ErrStateMismatch = errors.New("authorization response state does not match the request")
	// ErrPKCEUnsupported: the authorization server's metadata does not list
	// S256 in code_challenge_methods_supported, and MCP clients must not
	// authorize without PKCE.
	ErrPKCEUnsupported = errors.New("authorization server does not support PKCE with S256")
	// ErrNoClient: there is no way to get a client ID at the authorization
	// server (no pre-registered credentials for it, no client ID metadata
	// document support, no registration endpoint).
	ErrNoClient = errors.New("no client registration for the authorization server")
)

// OAuthError is an error response from an authorization server (RFC 6749
// section 5.2), or an error in an authorization response.
type OAuthError struct {
	// Endpoint names where the error came from, e.g. "token endpoint".
	Endpoint string
	// StatusCode is the HTTP status, or 0 for an authorization response.
	StatusCode int
	// Code is the OAuth error code, such as "invalid_grant".
	Code        string
	Description string
}

// Error implements error.
func (e *OAuthError) Error() string {
	s := fmt.Sprintf("%s refused the request: %s", e.Endpoint, e.Code)
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

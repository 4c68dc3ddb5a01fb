// Package authtest provides an OAuth 2.1 authorization server for tests of
// MCP clients and protected servers, as net/http/httptest provides HTTP
// servers: it publishes its metadata, registers clients dynamically,
// authorizes every request at once for a fixed user (there is no login
// page), grants pre-registered clients tokens for themselves (client
// credentials), and issues JWT access tokens and refresh tokens signed with
// a key made when it starts. It listens on a loopback port and is not meant
// for production use.
package authtest

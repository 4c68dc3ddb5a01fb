// Package httpserve serves a weft server over Streamable HTTP at /mcp until
// its context ends, then shuts down gracefully.
package httpserve

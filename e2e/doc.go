// Package e2e holds weft's end-to-end tests: the client against the server,
// over an in-memory pipe and a real stdio subprocess, in every protocol version
// (and over Streamable HTTP for what only HTTP carries).
//
// The package has no API; everything is in its tests. The test binary doubles
// as the stdio server: run with WEFT_E2E_STDIO_SERVER=1 it serves the test
// fixture on stdin and stdout instead of running tests.
package e2e

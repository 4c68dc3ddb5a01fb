// Package adversarial holds weft's adversarial suite: a corpus of bad input
// sent to a real server over stdio, Streamable HTTP (both eras) and HTTP+SSE,
// checking the status and JSON-RPC error each case gets, that the server
// still answers afterwards, and that another client's call in flight is not
// disturbed.
//
// The package has no API; everything is in its tests. The test binary doubles
// as the stdio server: run with WEFT_ADVERSARIAL_STDIO_SERVER=1 it serves the
// fixture on stdin and stdout instead of running tests.
package adversarial

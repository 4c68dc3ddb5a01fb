// Package console is a live web console of a weft server's tasks, for the
// people who operate it: an http.Handler that lists every task in the
// store across every instance sharing it, follows their changes on the Bus
// over Server-Sent Events, shows a task's input, outcome and audit trail,
// and cancels tasks wherever they run.
//
// Serve it on an address of its own, apart from the MCP endpoint (a
// loopback one unless a token is required: see Options.Verifier). The
// page is plain HTML, CSS and JavaScript embedded in the binary: no build
// step and nothing fetched from elsewhere.
package console

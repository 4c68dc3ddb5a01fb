// Package outcome holds the line the conformance client prints when a
// scenario ran to completion, so the report tool can tell a finished client
// from one that failed, crashed or was killed by the suite's timeout: in
// suite mode the conformance runner does not record the client's exit code.
package outcome

// Completed is the last line the conformance client writes to stderr after
// a scenario completed without error.
const Completed = "weft-conformance-client: scenario completed"

// FailedPrefix starts the last line the conformance client writes to stderr
// when a scenario failed; the reason follows it.
const FailedPrefix = "weft-conformance-client: scenario failed: "

// Package otel instruments weft servers and clients with OpenTelemetry,
// following the semantic conventions for MCP: a span for every request and
// notification on both sides (mcp.method.name, mcp.session.id,
// mcp.protocol.version, jsonrpc.request.id, gen_ai.tool.name,
// gen_ai.prompt.name, error.type), the trace context carried in
// params._meta (traceparent, tracestate) in both directions, the
// operation and session duration histograms, and, from the task engine,
// task metrics and a span per task covering its whole life, on whichever
// instance it ends, with its polls linked to the request that created it.
//
// It is a module of its own, so that weft itself depends on no
// OpenTelemetry package. Import it under another name when the
// OpenTelemetry API is imported too:
//
//	import weftotel "github.com/weftmcp/weft/otel"
package otel

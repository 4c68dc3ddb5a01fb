// Package proxy puts a weft server in front of any MCP server: the wrapped
// server's tools, resources, resource templates and prompts are offered by
// a weft server, which serves them in every protocol version and runs every
// tool as a task on request.
//
// A call to a wrapped tool becomes a call to the wrapped server, on a weft
// client session; cancelling the call (or the task it runs in) cancels the
// wrapped call. The wrapped server's progress notifications are passed on,
// and its questions (elicitation and sampling) are asked of the client whose
// call they belong to. A client subscribed to a resource hears of the
// wrapped server's changes to it, and argument completions are the wrapped
// server's. Roots are not passed on: the wrapped server runs
// beside the proxy, not beside the client.
package proxy

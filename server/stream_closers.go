package server

import "github.com/weftmcp/weft/mcp"

// ClosesSSEStream declares that the tool's handler may end the HTTP
// response carrying its call with Request.CloseSSEStream, as a server
// polling its clients does (SEP-1699). Over Streamable HTTP such a call is
// served on a goroutine of its own; a call of any other tool in a legacy
// session is served on the goroutine of the POST that carried it, which
// waits for the answer anyway and so saves two goroutine switches, and its
// CloseSSEStream reports false.
func ClosesSSEStream() ToolOption {
	return func(t *serverTool) { t.closesStream = true }
}

// MayCloseStream reports whether the handler of a request of method, whose
// params name name (the tool of a tools/call), may end the HTTP response
// carrying it before it returns (Request.CloseSSEStream): a tools/call of a
// tool added with ClosesSSEStream, and any method but ping and tools/call,
// whose handlers (prompts, resources, AddMethod) may call CloseSSEStream
// without declaring it. A transport serves a request that may not on the
// goroutine that waits for its answer (see streamable.StreamClosers).
func (s *Server) MayCloseStream(method, name string) bool {
	switch method {
	case mcp.MethodPing:
		return false
	case mcp.MethodToolsCall:
		t, ok := s.tools.get(name)
		return ok && t.closesStream
	}
	return true
}

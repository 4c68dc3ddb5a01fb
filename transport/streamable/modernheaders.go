package streamable

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// checkModernHeaders validates the headers a modern POST mirrors from its
// body (SEP-2243): MCP-Protocol-Version equal to the _meta version,
// Mcp-Method equal to the method, Mcp-Name equal to params.name, params.uri
// or params.taskId, and the Mcp-Param-* headers of a tools/call equal to
// the arguments its tool marks with x-mcp-header. Values may use the
// =?base64?…?= form. It returns the -32020 error to answer with 400, or nil.
//
// A body without a _meta protocol version is left to the server, which
// reports the missing member with -32602.
func (h *Handler) checkModernHeaders(r *http.Request, req *jsonrpc.Request, rp *routeParams) *jsonrpc.Error {
	hv := strings.TrimSpace(r.Header.Get(headerProtocolVersion))
	switch {
	case hv == "":
		return mcp.MissingHeaderError("MCP-Protocol-Version", "is missing; it must repeat params._meta[\""+mcp.MetaProtocolVersion+"\"]")
	case rp.hasVersion && hv != rp.version:
		return mcp.HeaderMismatchError("MCP-Protocol-Version", hv, rp.version)
	}
	method, ok := headerValue(r.Header, headerMethod)
	switch {
	case !ok:
		return mcp.MissingHeaderError("Mcp-Method", "is missing; it must repeat the body's method")
	case method != req.Method:
		return mcp.HeaderMismatchError("Mcp-Method", method, req.Method)
	}
	if member := mcp.NameParam(req.Method); member != "" {
		raw, present := headerValue(r.Header, headerName)
		switch {
		case !present && rp.hasName:
			return mcp.MissingHeaderError("Mcp-Name", "is missing; "+req.Method+" must repeat params."+member+" in it")
		case present:
			name, err := DecodeHeaderValue(raw)
			if err != nil {
				return mcp.MissingHeaderError("Mcp-Name", "cannot be read: "+err.Error())
			}
			if !rp.hasName || name != rp.name {
				return mcp.HeaderMismatchError("Mcp-Name", name, rp.name)
			}
		}
	}
	if req.Method == mcp.MethodToolsCall && rp.hasName && h.opts.ToolInputSchema != nil {
		return h.checkParamHeaders(r, rp)
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call against
// the arguments the tool's schema marks with x-mcp-header: a value in the
// body needs its header, a header needs its value, and the two must be
// equal (numbers numerically). Headers the tool does not declare are
// ignored, as intermediaries must forward them.
func (h *Handler) checkParamHeaders(r *http.Request, rp *routeParams) *jsonrpc.Error {
	for _, b := range h.paramHeaders(r.Context(), rp.name) {
		header := b.Header()
		raw, present := headerValue(r.Header, header)
		value, err := argumentAt(rp.arguments, b.Path)
		switch {
		case err != nil && !errors.Is(err, errNoValue):
			return nil // malformed arguments: the server reports them
		case errors.Is(err, errNoValue) && present:
			return jsonrpc.NewError(mcp.CodeHeaderMismatch,
				"Header mismatch: %s header is present but argument %q has no value in the body", header, strings.Join(b.Path, "."))
		case errors.Is(err, errNoValue):
			continue
		case !present:
			return mcp.MissingHeaderError(header, "is missing; tool "+rp.name+" mirrors argument \""+strings.Join(b.Path, ".")+"\" into it")
		}
		decoded, err := DecodeHeaderValue(raw)
		if err != nil {
			return mcp.MissingHeaderError(header, "cannot be read: "+err.Error())
		}
		if !sameValue(decoded, value) {
			return mcp.HeaderMismatchError(header, decoded, string(value))
		}
	}
	return nil
}

// toolHeaders caches the x-mcp-header bindings of one tool's schema.
type toolHeaders struct {
	schema   string
	bindings []mcp.ParamHeader
}

// paramHeaders returns the x-mcp-header bindings of a tool, parsing its
// schema only when it changed since the last call.
func (h *Handler) paramHeaders(ctx context.Context, tool string) []mcp.ParamHeader {
	schema, ok := h.opts.ToolInputSchema(ctx, tool)
	if !ok {
		return nil
	}
	if v, ok := h.schemas.Load(tool); ok {
		if th := v.(*toolHeaders); th.schema == string(schema) {
			return th.bindings
		}
	}
	bindings, err := mcp.ParamHeaders(schema)
	if err != nil {
		h.opts.Logger.Warn("streamable: ignoring the invalid x-mcp-header annotations of a tool; fix its inputSchema",
			"tool", tool, "error", err)
	}
	h.schemas.Store(tool, &toolHeaders{schema: string(schema), bindings: bindings})
	return bindings
}

// headerValue returns a header's first value without surrounding
// whitespace, and whether the header is present.
func headerValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.TrimSpace(vs[0]), true
}

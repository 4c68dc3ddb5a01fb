package streamable

import (
	"net/http"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// authorize checks that the token of a POST authenticated by the auth
// middleware grants the scopes each request in it needs by its method and,
// for tools/call, its tool (auth.Authorize), before any of them reaches
// the server. On failure it has answered with auth.WriteError's refusal
// (403 with the step-up challenge) and returns false. A POST the
// middleware did not authenticate is not checked: no policy applies to it.
func authorize(w http.ResponseWriter, r *http.Request, p *post) bool {
	if auth.TokenInfoFrom(r.Context()) == nil {
		return true
	}
	for _, m := range p.msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		var name string
		switch {
		case mcp.NameParam(req.Method) == "":
		case p.single() != nil:
			name = p.route.name
		default:
			name = scanParams(req.Method, req.Params).name
		}
		if err := auth.Authorize(r.Context(), req.Method, name); err != nil {
			auth.WriteError(w, err)
			return false
		}
	}
	return true
}

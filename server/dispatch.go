package server

import (
	"context"
	stdjson "encoding/json"
	"maps"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// paramsBase is implemented by every mcp params type (they embed
// mcp.RequestParams), so _meta is reachable whatever the method.
type paramsBase interface {
	ParamsBase() *mcp.RequestParams
}

// retryParams is implemented by the params of the methods a modern server may
// answer with an InputRequiredResult.
type retryParams interface {
	InputResponseBase() *mcp.InputResponseParams
}

// result is implemented by every mcp result type (they embed mcp.Result), so
// the modern stamps (resultType, serverInfo) can be set on any of them.
type result interface {
	ResultBase() *mcp.Result
}

// route is how the server serves one request method.
type route struct {
	// feature must be served (declared) for the method to exist.
	feature feature
	// decode decodes the params (raw may be nil: absent).
	decode func(raw stdjson.RawMessage) (paramsBase, error)
	// serve handles the request.
	serve func(s *Server, ctx context.Context, r *Request, p paramsBase) (result, error)
	// custom marks a method added with AddMethod, which exists in every
	// protocol version.
	custom bool
}

// newRoute returns the route of a method whose params are a P, served by serve.
func newRoute[P any, PP interface {
	*P
	paramsBase
}](f feature, serve func(s *Server, ctx context.Context, r *Request, p PP) (result, error)) *route {
	return &route{
		feature: f,
		decode: func(raw stdjson.RawMessage) (paramsBase, error) {
			p := PP(new(P))
			if len(raw) == 0 {
				return p, nil
			}
			return p, json.Unmarshal(raw, p)
		},
		serve: func(s *Server, ctx context.Context, r *Request, p paramsBase) (result, error) {
			return serve(s, ctx, r, p.(PP))
		},
	}
}

// specRoutes are the routes of the request methods the protocol defines,
// one per method the server answers in some version. Custom methods
// (AddMethod) may not replace them.
var specRoutes = map[string]*route{
	mcp.MethodToolsCall:              newRoute(featureTools, (*Server).callTool),
	mcp.MethodToolsList:              newRoute(featureTools, (*Server).listTools),
	mcp.MethodInitialize:             newRoute(featureNone, (*Server).initialize),
	mcp.MethodPing:                   newRoute(featureNone, (*Server).ping),
	mcp.MethodServerDiscover:         newRoute(featureNone, (*Server).discover),
	mcp.MethodSubscriptionsListen:    newRoute(featureNone, (*Server).listen),
	mcp.MethodLoggingSetLevel:        newRoute(featureNone, (*Server).setLevel),
	mcp.MethodCompletionComplete:     newRoute(featureNone, (*Server).complete),
	mcp.MethodPromptsList:            newRoute(featurePrompts, (*Server).listPrompts),
	mcp.MethodPromptsGet:             newRoute(featurePrompts, (*Server).getPrompt),
	mcp.MethodResourcesList:          newRoute(featureResources, (*Server).listResources),
	mcp.MethodResourcesTemplatesList: newRoute(featureResources, (*Server).listTemplates),
	mcp.MethodResourcesRead:          newRoute(featureResources, (*Server).readResource),
	mcp.MethodResourcesSubscribe:     newRoute(featureResources, (*Server).subscribe),
	mcp.MethodResourcesUnsubscribe:   newRoute(featureResources, (*Server).unsubscribe),
	mcp.MethodTasksGet:               newRoute(featureTasks, (*Server).getTask),
	mcp.MethodTasksResult:            newRoute(featureTasks, (*Server).taskResult),
	mcp.MethodTasksList:              newRoute(featureTasks, (*Server).listTasks),
	mcp.MethodTasksCancel:            newRoute(featureTasks, (*Server).cancelTask),
	mcp.MethodTasksUpdate:            newRoute(featureTasks, (*Server).updateTask),
	mcp.MethodSkillsList:             newRoute(featureSkills, (*Server).listSkills),
	mcp.MethodSkillsGet:              newRoute(featureSkills, (*Server).getSkill),
	mcp.MethodResourcesDirectoryRead: newRoute(featureSkills, (*Server).readDirectory),
}

// lookupRoute returns the route of method: one the protocol defines, else
// one added with AddMethod; nil when the server has none.
func (s *Server) lookupRoute(method string) *route {
	if rt := specRoutes[method]; rt != nil {
		return rt
	}
	return s.methods.lookup(method)
}

// methodNotFound is the -32601 answer to a method the server does not serve.
func methodNotFound(method, why string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method %q not found: %s", method, why)
}

// decodeRequest finds the route of a request and decodes its params.
func (s *Server) decodeRequest(req *jsonrpc.Request) (*route, paramsBase, error) {
	rt := s.lookupRoute(req.Method)
	if rt == nil {
		return nil, nil, methodNotFound(req.Method, "this server does not implement it")
	}
	p, err := rt.decode(req.Params)
	if err != nil {
		return nil, nil, invalidParams("invalid params for %s: %v", req.Method, err)
	}
	return rt, p, nil
}

// run serves a request whose era is settled, through the middleware
// (Options.Middleware) when there is any. A middleware's own error is
// offered to the exchange as a handler's is (see Request.refuse), so that
// an auth.RequireScopes failure is an HTTP 403 there too.
func (s *Server) run(ctx context.Context, r *Request, rt *route, p paramsBase) (result, error) {
	r.decoded = p
	if s.chain == nil {
		return s.dispatch(ctx, r, rt)
	}
	res, err := s.chain(ctx, r)
	if err != nil {
		r.refuse(err)
	}
	return res, err
}

// dispatch serves a request whose era is settled, by its route rt, with
// its decoded params on r: it checks that the method exists in the
// request's version and is served (or was declared to the legacy session
// in initialize, though nothing of its kind is left), sets up multi
// round-trip state, calls
// the handler, and finishes the result for the era.
func (s *Server) dispatch(ctx context.Context, r *Request, rt *route) (Result, error) {
	p := r.decoded
	extension := (r.modern && mcp.IsTasksExtensionMethod(r.method)) || mcp.IsSkillsExtensionMethod(r.method)
	if r.version != "" && !rt.custom && !mcp.MethodInVersion(r.method, r.version) && !extension {
		return nil, methodNotFound(r.method, "it does not exist in protocol version "+r.version)
	}
	if !s.serves(rt.feature) && (r.session == nil || !r.session.declared(rt.feature)) {
		switch rt.feature {
		case featureTasks:
			return nil, methodNotFound(r.method, "this server runs no tasks")
		case featureSkills:
			return nil, methodNotFound(r.method, "this server serves no skills")
		}
		return nil, methodNotFound(r.method, "the server offers none of what it lists or serves")
	}
	if rp, ok := p.(retryParams); ok && r.modern {
		if err := r.beginRound(rp.InputResponseBase()); err != nil {
			return nil, err
		}
	}
	// Deferred, so that a handler's panic, answered -32603 further up,
	// also ends what the request may send.
	defer r.finish()
	res, err := rt.serve(s, ctx, r, p)
	switch {
	case r.refuse(err):
		// The transport answered the error itself.
	case r.round != nil && r.round.hasPending():
		res, err = r.inputRequired()
	}
	if err != nil {
		return nil, err
	}
	if r.modern {
		s.stamp(res)
	}
	return res, nil
}

// stamp adds what every modern result carries: resultType ("complete" unless
// the handler chose another) and _meta[MetaServerInfo]. res is the server's
// own value, never one a handler may share.
func (s *Server) stamp(res result) {
	b := res.ResultBase()
	if b.ResultType == "" {
		b.ResultType = mcp.ResultComplete
	}
	if _, ok := b.Meta[mcp.MetaServerInfo]; ok {
		return
	}
	m := make(mcp.Meta, len(b.Meta)+1)
	maps.Copy(m, b.Meta)
	m[mcp.MetaServerInfo] = s.serverInfo
	b.Meta = m
}

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

// The routes, one per request method the server answers in some version.
var (
	routeInitialize    = newRoute(featureNone, (*Server).initialize)
	routePing          = newRoute(featureNone, (*Server).ping)
	routeDiscover      = newRoute(featureNone, (*Server).discover)
	routeListen        = newRoute(featureNone, (*Server).listen)
	routeSetLevel      = newRoute(featureNone, (*Server).setLevel)
	routeComplete      = newRoute(featureNone, (*Server).complete)
	routeToolsList     = newRoute(featureTools, (*Server).listTools)
	routeToolsCall     = newRoute(featureTools, (*Server).callTool)
	routePromptsList   = newRoute(featurePrompts, (*Server).listPrompts)
	routePromptsGet    = newRoute(featurePrompts, (*Server).getPrompt)
	routeResourcesList = newRoute(featureResources, (*Server).listResources)
	routeTemplatesList = newRoute(featureResources, (*Server).listTemplates)
	routeResourcesRead = newRoute(featureResources, (*Server).readResource)
	routeSubscribe     = newRoute(featureResources, (*Server).subscribe)
	routeUnsubscribe   = newRoute(featureResources, (*Server).unsubscribe)
	routeTasksGet      = newRoute(featureTasks, (*Server).getTask)
	routeTasksResult   = newRoute(featureTasks, (*Server).taskResult)
	routeTasksList     = newRoute(featureTasks, (*Server).listTasks)
	routeTasksCancel   = newRoute(featureTasks, (*Server).cancelTask)
	routeTasksUpdate   = newRoute(featureTasks, (*Server).updateTask)
	routeSkillsList    = newRoute(featureSkills, (*Server).listSkills)
	routeSkillsGet     = newRoute(featureSkills, (*Server).getSkill)
	routeDirectoryRead = newRoute(featureSkills, (*Server).readDirectory)
)

// lookupRoute returns the route of method, or nil when the server has none.
func lookupRoute(method string) *route {
	switch method {
	case mcp.MethodToolsCall:
		return routeToolsCall
	case mcp.MethodToolsList:
		return routeToolsList
	case mcp.MethodInitialize:
		return routeInitialize
	case mcp.MethodPing:
		return routePing
	case mcp.MethodServerDiscover:
		return routeDiscover
	case mcp.MethodSubscriptionsListen:
		return routeListen
	case mcp.MethodLoggingSetLevel:
		return routeSetLevel
	case mcp.MethodCompletionComplete:
		return routeComplete
	case mcp.MethodPromptsList:
		return routePromptsList
	case mcp.MethodPromptsGet:
		return routePromptsGet
	case mcp.MethodResourcesList:
		return routeResourcesList
	case mcp.MethodResourcesTemplatesList:
		return routeTemplatesList
	case mcp.MethodResourcesRead:
		return routeResourcesRead
	case mcp.MethodResourcesSubscribe:
		return routeSubscribe
	case mcp.MethodResourcesUnsubscribe:
		return routeUnsubscribe
	case mcp.MethodTasksGet:
		return routeTasksGet
	case mcp.MethodTasksResult:
		return routeTasksResult
	case mcp.MethodTasksList:
		return routeTasksList
	case mcp.MethodTasksCancel:
		return routeTasksCancel
	case mcp.MethodTasksUpdate:
		return routeTasksUpdate
	case mcp.MethodSkillsList:
		return routeSkillsList
	case mcp.MethodSkillsGet:
		return routeSkillsGet
	case mcp.MethodResourcesDirectoryRead:
		return routeDirectoryRead
	}
	return nil
}

// methodNotFound is the -32601 answer to a method the server does not serve.
func methodNotFound(method, why string) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method %q not found: %s", method, why)
}

// decodeRequest finds the route of a request and decodes its params.
func decodeRequest(req *jsonrpc.Request) (*route, paramsBase, error) {
	rt := lookupRoute(req.Method)
	if rt == nil {
		return nil, nil, methodNotFound(req.Method, "this server does not implement it")
	}
	p, err := rt.decode(req.Params)
	if err != nil {
		return nil, nil, invalidParams("invalid params for %s: %v", req.Method, err)
	}
	return rt, p, nil
}

// run serves a request whose era is settled: it checks that the method exists
// in the request's version and is served, sets up multi round-trip state,
// calls the handler, and finishes the result for the era.
func (s *Server) run(ctx context.Context, r *Request, rt *route, p paramsBase) (result, error) {
	extension := (r.modern && mcp.IsTasksExtensionMethod(r.method)) || mcp.IsSkillsExtensionMethod(r.method)
	if r.version != "" && !mcp.MethodInVersion(r.method, r.version) && !extension {
		return nil, methodNotFound(r.method, "it does not exist in protocol version "+r.version)
	}
	if !s.serves(rt.feature) {
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
	res, err := rt.serve(s, ctx, r, p)
	switch {
	case r.refuse(err):
		// The transport answered the error itself.
	case r.round != nil && r.round.hasPending():
		res, err = r.inputRequired()
	}
	r.finish()
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

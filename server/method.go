package server

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/weftmcp/weft/mcp"
)

// ParamsPtr is a pointer to the params of a request method: a struct that
// embeds mcp.RequestParams, so that _meta (which a modern request carries
// there) is reachable.
type ParamsPtr[P any] interface {
	*P
	ParamsBase() *mcp.RequestParams
}

// ResultPtr is a pointer to the result of a request method: a struct that
// embeds mcp.Result, so that the server can add what every modern result
// carries (resultType, _meta).
type ResultPtr[R any] interface {
	*R
	ResultBase() *mcp.Result
}

// AddMethod serves a request method the protocol does not define, such as
// an extension's, replacing any method added before under the same name.
// Its params are decoded strictly, as every params are (member names match
// case-sensitively, duplicates are rejected): a client whose params do not
// decode gets -32602 naming the method and the problem, and a method that
// was never added is -32601. h's result is sent as it is, with the modern
// resultType and _meta stamps on a modern request (made on a copy, so h
// may answer with a value it shares); an error from h is sent
// as a protocol error (a *jsonrpc.Error as it is, anything else as -32603
// with its text). The method exists in every protocol version, and passes
// through Options.Middleware like any other.
//
// A legacy session must be initialized before it can call the method; a
// modern request carries its _meta like every request.
//
// AddMethod panics when method is empty, names a method or notification the
// protocol defines (which cannot be replaced), starts with "notifications/"
// (this serves requests) or with "rpc." (reserved by JSON-RPC 2.0).
func AddMethod[P, R any, PP ParamsPtr[P], RP ResultPtr[R]](s *Server, method string, h func(ctx context.Context, r *Request, p PP) (RP, error)) {
	if err := customMethodName(method); err != nil {
		panic("server: AddMethod: " + err.Error())
	}
	rt := newRoute(featureNone, func(_ *Server, ctx context.Context, r *Request, p PP) (result, error) {
		res, err := h(ctx, r, p)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, fmt.Errorf("the handler of %s returned neither a result nor an error", method)
		}
		out := *res // the handler's value may be shared: the modern stamps go on a copy
		return RP(&out), nil
	})
	rt.custom = true
	s.methods.add(method, rt)
}

// customMethodName returns why method cannot be added with AddMethod, or nil.
func customMethodName(method string) error {
	switch {
	case method == "":
		return fmt.Errorf("a method needs a name")
	case strings.HasPrefix(method, "rpc."):
		return fmt.Errorf("method %q: names starting with \"rpc.\" are reserved by JSON-RPC 2.0", method)
	case strings.HasPrefix(method, "notifications/"):
		return fmt.Errorf("method %q: AddMethod serves requests, and names starting with \"notifications/\" are notifications", method)
	case isSpecMethod(method):
		return fmt.Errorf("method %q is defined by the protocol and cannot be replaced; give an extension's method a name of its own (for example \"com.example/%s\")", method, method)
	}
	return nil
}

// isSpecMethod reports whether the protocol defines method, as a request
// or notification of some version or of the tasks extension.
func isSpecMethod(method string) bool {
	if specRoutes[method] != nil || mcp.IsTasksExtensionMethod(method) {
		return true
	}
	for _, v := range mcp.SupportedVersions() {
		if mcp.MethodInVersion(method, v) {
			return true
		}
	}
	return false
}

// customMethods are the methods added with AddMethod. Readers load the
// table without a lock; writers replace it whole.
type customMethods struct {
	mu    sync.Mutex // serialises writers
	table atomic.Pointer[map[string]*route]
}

// lookup returns the route of method, or nil.
func (m *customMethods) lookup(method string) *route {
	t := m.table.Load()
	if t == nil {
		return nil
	}
	return (*t)[method]
}

// add sets the route of method.
func (m *customMethods) add(method string, rt *route) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := map[string]*route{}
	if t := m.table.Load(); t != nil {
		next = maps.Clone(*t)
	}
	next[method] = rt
	m.table.Store(&next)
}

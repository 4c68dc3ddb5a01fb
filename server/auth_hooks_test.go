package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/mcp"
)

// The hooks behind auth's middleware over Streamable HTTP: what a
// verified token carries reaches visibility predicates and middleware.

func TestVisibility_SeesTheScopesOfTheVerifiedTokenOverHTTP(t *testing.T) {
	s := New(mcp.Implementation{Name: "vis", Version: "1"}, &Options{Logger: quietLogger, Visibility: Visibility{
		Tool: func(ctx context.Context, _ *Request, tool *mcp.Tool) bool {
			info := auth.TokenInfoFrom(ctx)
			return tool.Name != "report" || (info != nil && slices.Contains(info.Scopes, "reports"))
		},
	}})
	for _, name := range []string{"echo", "report"} {
		AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *Request, struct{}) (string, error) { return name, nil })
	}
	e := mountWithAuth(t, s)
	for _, c := range []struct {
		who    string
		scopes []string
		want   bool
	}{{"without the scope", nil, false}, {"with the scope", []string{"reports"}, true}} {
		hdr := e.bearer(t, "alice", c.scopes...)
		modern := string(nextMessage(t, messages(t, modernCall(t, e.url, mcp.MethodToolsList, "", `{}`, hdr))))
		session := legacySession(t, e.url, hdr)
		legacy := string(nextMessage(t, messages(t, post(t, e.url, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`, session))))
		for era, got := range map[string]string{"modern": modern, "legacy": legacy} {
			if !strings.Contains(got, `"echo"`) || strings.Contains(got, `"report"`) != c.want {
				t.Errorf("%s tools/list %s: %s; want report listed: %v", era, c.who, got, c.want)
			}
		}
	}
}

func TestMiddleware_AScopeErrorIsRefusedAsTheTransportRefusesIt(t *testing.T) {
	needScope := func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (Result, error) {
			if r.ToolName() == "report" {
				if err := auth.RequireScopes(ctx, "reports"); err != nil {
					return nil, err
				}
			}
			return next(ctx, r)
		}
	}
	s := New(mcp.Implementation{Name: "mw", Version: "1"}, &Options{Logger: quietLogger, Middleware: []Middleware{needScope}})
	AddTool(s, &mcp.Tool{Name: "report"}, func(context.Context, *Request, struct{}) (string, error) { return "report", nil })
	e := mountWithAuth(t, s)
	alice := e.bearer(t, "alice")
	want := map[string]string{auth.ParamError: auth.ErrorInsufficientScope, auth.ParamScope: "reports"}
	wantChallenge(t, "modern report without the scope", modernCall(t, e.url, mcp.MethodToolsCall, "report", `{"name":"report","arguments":{}}`, alice),
		http.StatusForbidden, want)
	session := legacySession(t, e.url, alice)
	wantChallenge(t, "legacy report without the scope", post(t, e.url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"report","arguments":{}}}`, session),
		http.StatusForbidden, want)
	got := nextMessage(t, messages(t, modernCall(t, e.url, mcp.MethodToolsCall, "report", `{"name":"report","arguments":{}}`, e.bearer(t, "alice", "reports"))))
	if text1(t, []byte(member(t, got, "result"))) != "report" {
		t.Errorf("report with the scope answered %s", got)
	}
}

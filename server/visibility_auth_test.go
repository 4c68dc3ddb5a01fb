package server

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/mcp"
)

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

package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// pagedTools answers tools/list with pages of tools named by pages; the page
// for cursor c is pages[c], and next names the following cursor.
func pagedTools(pages map[string][]string, next map[string]string) handlerFunc {
	return func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.ListToolsParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		names, ok := pages[p.Cursor]
		if !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad cursor %q", p.Cursor)
		}
		res := &mcp.ListToolsResult{Result: mcp.Result{ResultType: mcp.ResultComplete}, Cache: &mcp.CacheableResult{}, NextCursor: next[p.Cursor]}
		for _, n := range names {
			res.Tools = append(res.Tools, mcp.Tool{Name: n, InputSchema: []byte(`{"type":"object"}`)})
		}
		return res, nil
	}
}

func TestToolsFollowsCursors(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsList: pagedTools(map[string][]string{"": {"a", "b"}, "c1": {}, "c2": {"c"}}, map[string]string{"": "c1", "c1": "c2"}),
	})
	var names []string
	for tool, err := range s.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Errorf("Tools yielded %s, want a,b,c", got)
	}
	if n := len(p.requests(mcp.MethodToolsList)); n != 3 {
		t.Errorf("tools/list sent %d times, want 3", n)
	}
}

func TestToolsStopsEarlyWhenTheLoopBreaks(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsList: pagedTools(map[string][]string{"": {"a", "b"}, "c1": {"c"}}, map[string]string{"": "c1"}),
	})
	for range s.Tools(testCtx(t)) {
		break
	}
	if n := len(p.requests(mcp.MethodToolsList)); n != 1 {
		t.Errorf("tools/list sent %d times after breaking on the first tool, want 1", n)
	}
}

func TestToolsEndsOnARepeatedCursor(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsList: pagedTools(map[string][]string{"": {"a"}, "x": {"b"}}, map[string]string{"": "x", "x": "x"}),
	})
	var names []string
	var last error
	for tool, err := range s.Tools(testCtx(t)) {
		if err != nil {
			last = err
			continue
		}
		names = append(names, tool.Name)
	}
	if last == nil || !strings.Contains(last.Error(), `"x"`) || fmt.Sprint(names) != "[a b]" {
		t.Errorf("Tools yielded %v then %v; want a, b, then an error naming the repeated cursor", names, last)
	}
}

func TestListIteratorsReportServerErrors(t *testing.T) {
	s, _ := connect(t, nil, nil) // the fake server knows no list methods
	ctx := testCtx(t)
	checks := map[string]func() error{
		"Resources": func() error {
			for _, err := range s.Resources(ctx) {
				return err
			}
			return nil
		},
		"ResourceTemplates": func() error {
			for _, err := range s.ResourceTemplates(ctx) {
				return err
			}
			return nil
		},
		"Prompts": func() error {
			for _, err := range s.Prompts(ctx) {
				return err
			}
			return nil
		},
	}
	for name, check := range checks {
		var e *jsonrpc.Error
		if err := check(); !errors.As(err, &e) || e.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: first yield error = %v, want the server's -32601", name, err)
		}
	}
}

package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

func TestPagination_PagesInRegistrationOrder(t *testing.T) {
	s := newTestServer(t, &Options{PageSize: 2})
	for i := range 5 {
		s.AddRawTool(&mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "d"}, nil)
		s.AddPrompt(&mcp.Prompt{Name: fmt.Sprintf("p%d", i), Description: "d"}, nil)
		s.AddResource(&mcp.Resource{URI: fmt.Sprintf("test://r%d", i), Name: "r"}, nil)
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: fmt.Sprintf("test://x%d/{id}", i), Name: "x"}, nil)
	}
	lists := []struct{ method, member, key, prefix string }{
		{"tools/list", "tools", "name", "t"},
		{"prompts/list", "prompts", "name", "p"},
		{"resources/list", "resources", "uri", "test://r"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate", "test://x"},
	}
	for _, v := range []string{mcp.Version20241105, mcp.Version20260728} {
		c := open(t, s, v, `{}`, nil)
		for _, l := range lists {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatalf("%s: pagination does not end", l.method)
				}
				params := `{}`
				if cursor != "" {
					params = fmt.Sprintf(`{"cursor":%q}`, cursor)
				}
				var page map[string]any
				decode(t, c.mustCall(l.method, params), &page)
				items := page[l.member].([]any)
				if len(items) > 2 {
					t.Fatalf("%s: a page holds %d items, page size is 2", l.method, len(items))
				}
				for _, it := range items {
					got = append(got, strings.TrimPrefix(it.(map[string]any)[l.key].(string), l.prefix))
				}
				next, ok := page["nextCursor"].(string)
				if !ok {
					break
				}
				cursor = next
			}
			if strings.Join(got, ",") != "0,1,2,3,4" && strings.Join(got, ",") != "0/{id},1/{id},2/{id},3/{id},4/{id}" {
				t.Errorf("%s %s listed %v", v, l.method, got)
			}
		}
	}
}

func TestPagination_CursorSurvivesRemovalAndRejectsForgery(t *testing.T) {
	s := newTestServer(t, &Options{PageSize: 2})
	for i := range 4 {
		s.AddRawTool(&mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "d"}, nil)
	}
	s.AddPrompt(&mcp.Prompt{Name: "p"}, nil)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	first := c.mustCall("tools/list", `{}`)
	cursor := member(t, first, "nextCursor")
	s.RemoveTools("t1", "t2")
	rest := c.mustCall("tools/list", `{"cursor":`+cursor+`}`)
	if got := member(t, rest, "tools"); !strings.Contains(got, `"t3"`) || strings.Contains(got, `"t2"`) {
		t.Errorf("after removing t1 and t2, the next page is %s", got)
	}
	bad := []string{`"not-a-cursor"`, `"` + strings.Trim(cursor, `"`) + `x"`, `"AAAA"`}
	for _, b := range bad {
		if e := c.callErr("tools/list", `{"cursor":`+b+`}`); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "cursor") {
			t.Errorf("cursor %s: %v", b, e)
		}
	}
	if e := c.callErr("prompts/list", `{"cursor":`+cursor+`}`); e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a tools/list cursor on prompts/list: %v", e)
	}
	other := open(t, newTestServer(t, &Options{PageSize: 2}), mcp.Version20251125, `{}`, nil)
	other.session.srv.AddRawTool(&mcp.Tool{Name: "a"}, nil)
	if e := other.callErr("tools/list", `{"cursor":`+cursor+`}`); e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a cursor from another server (another key): %v", e)
	}
}

func TestRegistry_ConcurrentRegistrationWhileServing(t *testing.T) {
	s := newTestServer(t, nil)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				name := fmt.Sprintf("g%d-%d", g, i)
				s.AddRawTool(&mcp.Tool{Name: name}, nil)
				if i%2 == 0 {
					s.RemoveTools(name)
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if _, err := c.call("tools/list", `{}`); err != nil {
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
					t.Errorf("tools/list while registering: %v", err)
				}
			}
		}
	})
	wg.Wait()
	if n := s.tools.len(); n != 100 {
		t.Errorf("%d tools registered, want 100", n)
	}
}

func TestResources_ReadEveryVersion(t *testing.T) {
	s := newTestServer(t, nil)
	s.AddResource(&mcp.Resource{URI: "test://static-text", Name: "static", MIMEType: "text/plain"}, staticText("This is static."))
	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "bin", MIMEType: "image/png"},
		func(_ context.Context, _ *Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.BlobResourceContents{URI: uri, MIMEType: "image/png", Blob: []byte{1, 2, 3}}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "tmpl", MIMEType: "application/json"},
		func(_ context.Context, _ *Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
			if vars["id"] == "missing" {
				return nil, fmt.Errorf("no such id: %w", ErrResourceNotFound)
			}
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: `{"id":"` + vars["id"] + `"}`}}}, nil
		})
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, `{}`, nil)
			if got := member(t, c.mustCall("resources/read", `{"uri":"test://static-text"}`), "contents"); got != `[{"uri":"test://static-text","mimeType":"text/plain","text":"This is static."}]` {
				t.Errorf("text contents %s", got)
			}
			if got := member(t, c.mustCall("resources/read", `{"uri":"test://static-binary"}`), "contents"); got != `[{"uri":"test://static-binary","mimeType":"image/png","blob":"AQID"}]` {
				t.Errorf("blob contents %s", got)
			}
			if got := member(t, c.mustCall("resources/read", `{"uri":"test://template/123/data"}`), "contents"); !strings.Contains(got, `{\"id\":\"123\"}`) {
				t.Errorf("template contents %s", got)
			}
			wantCode := int64(mcp.CodeResourceNotFound)
			if mcp.IsModern(v) {
				wantCode = jsonrpc.CodeInvalidParams
			}
			for _, uri := range []string{"test://nothing", "test://template/missing/data"} {
				e := c.callErr("resources/read", `{"uri":"`+uri+`"}`)
				if e.Code != wantCode || string(e.Data) != `{"uri":"`+uri+`"}` {
					t.Errorf("reading %s: %v data %s, want code %d with data {uri}", uri, e, e.Data, wantCode)
				}
			}
			if got := member(t, c.mustCall("resources/templates/list", `{}`), "resourceTemplates"); !strings.Contains(got, `"uriTemplate":"test://template/{id}/data"`) {
				t.Errorf("templates %s", got)
			}
		})
	}
}

func TestResources_SubscribeAndUpdated(t *testing.T) {
	s := fullServer(t, nil)
	s.AddResource(&mcp.Resource{URI: "test://watched", Name: "w"}, staticText("w"))
	c := open(t, s, mcp.Version20250618, `{}`, nil)
	other := open(t, s, mcp.Version20250618, `{}`, nil)
	if res := c.mustCall("resources/subscribe", `{"uri":"test://watched"}`); string(res) != `{}` {
		t.Errorf("subscribe answered %s", res)
	}
	if err := s.ResourceUpdated(context.Background(), "test://watched"); err != nil {
		t.Fatal(err)
	}
	n := c.nextNote()
	if n.Method != mcp.NotificationResourcesUpdated || string(n.Params) != `{"uri":"test://watched"}` {
		t.Errorf("got %s %s", n.Method, n.Params)
	}
	c.mustCall("resources/unsubscribe", `{"uri":"test://watched"}`)
	c.mustCall("resources/subscribe", `{"uri":"test://static"}`)
	other.mustCall("resources/subscribe", `{"uri":"test://static"}`)
	s.ResourceUpdated(context.Background(), "test://watched")
	s.ResourceUpdated(context.Background(), "test://static")
	// Updates reach a session in order: had the first been sent, it would come first.
	for _, cl := range []*testClient{c, other} {
		if n := cl.nextNote(); string(n.Params) != `{"uri":"test://static"}` {
			t.Errorf("after unsubscribing, the next notification is %s %s", n.Method, n.Params)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.ResourceUpdated(ctx, "test://watched"); err == nil {
		t.Errorf("ResourceUpdated with an ended context returned nil")
	}
}

func TestPrompts_GetEveryVersion(t *testing.T) {
	s := newTestServer(t, nil)
	s.AddPrompt(&mcp.Prompt{Name: "args", Description: "Echoes its arguments.", Title: "Args",
		Arguments: []mcp.PromptArgument{{Name: "arg1", Required: true, Title: "First"}, {Name: "arg2"}}},
		func(_ context.Context, _ *Request, args map[string]string) (*mcp.GetPromptResult, error) {
			text := fmt.Sprintf("arg1=%q arg2=%q", args["arg1"], args["arg2"])
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "broken"}, func(context.Context, *Request, map[string]string) (*mcp.GetPromptResult, error) {
		return nil, fmt.Errorf("the template is broken")
	})
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, `{}`, nil)
			res := c.mustCall("prompts/get", `{"name":"args","arguments":{"arg1":"a","arg2":"b"}}`)
			if got := member(t, res, "messages"); got != `[{"role":"user","content":{"type":"text","text":"arg1=\"a\" arg2=\"b\""}}]` {
				t.Errorf("messages %s", got)
			}
			e := c.callErr("prompts/get", `{"name":"args","arguments":{"arg2":"b"}}`)
			if e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, `"arg1"`) {
				t.Errorf("missing required argument: %v", e)
			}
			if e := c.callErr("prompts/get", `{"name":"nope"}`); e.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("unknown prompt: %v", e)
			}
			if e := c.callErr("prompts/get", `{"name":"broken"}`); e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "broken") {
				t.Errorf("a failing prompt handler: %v", e)
			}
			list := c.mustCall("prompts/list", `{}`)
			if got := strings.Contains(string(list), "First"); got != mcp.SupportsTitles(v) {
				t.Errorf("%s: argument titles listed = %v: %s", v, got, list)
			}
		})
	}
}

func TestCompletion_DefaultAndCustom(t *testing.T) {
	s := fullServer(t, nil)
	req := `{"ref":{"type":"ref/prompt","name":"hello"},"argument":{"name":"arg1","value":"te"}}`
	for _, v := range allVersions {
		c := open(t, s, v, `{}`, nil)
		if got := member(t, c.mustCall("completion/complete", req), "completion"); got != `{"values":[],"total":0,"hasMore":false}` {
			t.Errorf("%s: default completion %s", v, got)
		}
		if e := c.callErr("completion/complete", `{"ref":{"type":"ref/other"},"argument":{"name":"a","value":""}}`); e.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: bad ref type: %v", v, e)
		}
	}
	c := open(t, s, mcp.Version20250618, `{}`, nil)
	s.SetCompletionHandler(func(_ context.Context, _ *Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{p.Argument.Value + "st"}}}, nil
	})
	if got := member(t, c.mustCall("completion/complete", req), "completion"); got != `{"values":["test"]}` {
		t.Errorf("custom completion %s", got)
	}
	s.SetCompletionHandler(func(_ context.Context, _ *Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		more := false
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"test"}, HasMore: &more}}, nil
	})
	if got := member(t, c.mustCall("completion/complete", req), "completion"); got != `{"values":["test"],"hasMore":false}` {
		t.Errorf("a handler's explicit hasMore false became %s", got)
	}
	s.SetCompletionHandler(nil)
	if got := member(t, c.mustCall("completion/complete", req), "completion", "values"); got != `[]` {
		t.Errorf("after resetting the handler: %s", got)
	}
}

func TestCompletion_AtMostAHundredValuesWithHasMore(t *testing.T) {
	s := fullServer(t, nil)
	s.SetCompletionHandler(func(_ context.Context, _ *Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		values := make([]string, 150)
		for i := range values {
			values[i] = fmt.Sprintf("%s%d", p.Argument.Value, i)
		}
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: values}}, nil
	})
	req := `{"ref":{"type":"ref/prompt","name":"hello"},"argument":{"name":"arg1","value":"v"}}`
	for _, v := range allVersions {
		c := open(t, s, v, `{}`, nil)
		var got mcp.Completion
		decode(t, []byte(member(t, c.mustCall("completion/complete", req), "completion")), &got)
		if len(got.Values) != 100 || got.Values[0] != "v0" || got.Values[99] != "v99" {
			t.Errorf("%s: %d values (%q … ), want the first 100 of 150", v, len(got.Values), got.Values[:min(len(got.Values), 3)])
		}
		if got.HasMore == nil || !*got.HasMore || got.Total == nil || *got.Total != 150 {
			t.Errorf("%s: hasMore %v, total %v; want true and 150", v, got.HasMore, got.Total)
		}
	}
}

func TestCaching_ListsThatVaryByCallerAreNotPublic(t *testing.T) {
	hideAdmin := func(r *Request, name string) bool { return name != "admin" || r.Principal() == "root" }
	s := newTestServer(t, &Options{Visibility: Visibility{
		Tool:   func(_ context.Context, r *Request, t *mcp.Tool) bool { return hideAdmin(r, t.Name) },
		Prompt: func(_ context.Context, r *Request, p *mcp.Prompt) bool { return hideAdmin(r, p.Name) },
	}})
	for _, name := range []string{"admin", "public"} {
		AddTool(s, &mcp.Tool{Name: name, Description: "d"}, func(context.Context, *Request, struct{}) (string, error) { return name, nil })
		s.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *Request, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
		s.AddResource(&mcp.Resource{URI: "test://" + name, Name: name}, func(_ context.Context, _ *Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: name}}}, nil
		})
	}
	m := &mrtr{t: t, s: s, caps: `{}`, info: transport.RequestInfo{Principal: "guest"}}
	for method, want := range map[string]string{
		"tools/list":               `"private"`, // a Visibility.Tool decides per caller
		"prompts/list":             `"private"`,
		"resources/list":           `"public"`, // no predicate: the same for everyone
		"resources/templates/list": `"public"`,
		"server/discover":          `"public"`,
	} {
		if got := member(t, m.complete(m.call(method, `{}`)), "cacheScope"); got != want {
			t.Errorf("%s: cacheScope %s, want %s", method, got, want)
		}
	}
	explicit := newTestServer(t, &Options{ListCache: CacheHint{Scope: mcp.CachePublic},
		Visibility: Visibility{Tool: func(context.Context, *Request, *mcp.Tool) bool { return true }}})
	AddTool(explicit, &mcp.Tool{Name: "t", Description: "d"}, func(context.Context, *Request, struct{}) (string, error) { return "", nil })
	m = &mrtr{t: t, s: explicit, caps: `{}`}
	if got := member(t, m.complete(m.call("tools/list", `{}`)), "cacheScope"); got != `"public"` {
		t.Errorf("tools/list with ListCache.Scope set to public: cacheScope %s", got)
	}
}

func TestCompletion_RequestWithoutItsRequiredMembersIsInvalidParams(t *testing.T) {
	s := fullServer(t, nil)
	ran := make(chan *mcp.CompleteParams, 1)
	s.SetCompletionHandler(func(_ context.Context, _ *Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		select {
		case ran <- p:
		default:
		}
		return &mcp.CompleteResult{}, nil
	})
	for _, v := range allVersions {
		c := open(t, s, v, `{}`, nil)
		for _, params := range []string{
			`{"ref":{"type":"ref/prompt"},"argument":{"name":"arg1","value":""}}`,   // a PromptReference needs its name
			`{"ref":{"type":"ref/resource"},"argument":{"name":"arg1","value":""}}`, // a ResourceTemplateReference its uri
			`{"ref":{"type":"ref/prompt","name":"hello"}}`,                          // no argument
			`{"ref":{"type":"ref/prompt","name":"hello"},"argument":{"value":"x"}}`, // an argument without its name
		} {
			if e := c.callErr("completion/complete", params); e.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s: %s answered %v, want -32602", v, params, e)
			}
		}
		c.mustCall("completion/complete", `{"ref":{"type":"ref/resource","uri":"test://{id}"},"argument":{"name":"id","value":""}}`)
	}
	select {
	case p := <-ran:
		if p.Ref.URI != "test://{id}" {
			t.Errorf("the handler ran for %+v; want only the well-formed request", p)
		}
	default:
		t.Error("the handler never ran for a well-formed request")
	}
}

func TestListChanged_ASessionToldOfAListCanStillListItOnceItIsEmpty(t *testing.T) {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "only", Description: "d"}, func(context.Context, *Request, struct{}) (string, error) { return "", nil })
	s.AddPrompt(&mcp.Prompt{Name: "only"}, func(context.Context, *Request, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://only", Name: "only"}, func(_ context.Context, _ *Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "x"}}}, nil
	})
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	s.RemoveTools("only")
	s.RemovePrompts("only")
	s.RemoveResources("test://only")
	for _, want := range []string{mcp.NotificationToolsListChanged, mcp.NotificationPromptsListChanged, mcp.NotificationResourcesListChanged} {
		if n := c.nextNote(); n.Method != want {
			t.Fatalf("notification %s, want %s", n.Method, want)
		}
	}
	// initialize declared tools, prompts and resources: listing them again
	// after list_changed gives empty lists, not -32601.
	for method, list := range map[string]string{"tools/list": "tools", "prompts/list": "prompts",
		"resources/list": "resources", "resources/templates/list": "resourceTemplates"} {
		res, err := c.call(method, `{}`)
		if err != nil || member(t, res, list) != "[]" {
			t.Errorf("%s after its last item was removed: %s %v; want an empty list", method, res, err)
		}
	}
	if e := c.callErr("tools/call", `{"name":"only"}`); e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("calling the removed tool: %v, want -32602 unknown tool", e)
	}
	c.mustCall("resources/subscribe", `{"uri":"test://only"}`)
	fresh := open(t, s, mcp.Version20251125, `{}`, nil) // told of none of them
	if e := fresh.callErr("tools/list", `{}`); e.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("tools/list on a session initialized with no tools: %v, want -32601", e)
	}
}

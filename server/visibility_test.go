package server_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// secretServer has a public and a secret item of every kind; the secret
// ones are visible only while granted is set.
func secretServer(granted *atomic.Bool, hooks server.SessionHooks) *server.Server {
	secret := func(name string) bool { return !strings.Contains(name, "secret") || granted.Load() }
	s := server.New(mcp.Implementation{Name: "vis", Version: "1"}, &server.Options{Logger: quiet, PageSize: 1, Sessions: hooks, Visibility: server.Visibility{
		Tool:             func(_ context.Context, _ *server.Request, t *mcp.Tool) bool { return secret(t.Name) },
		Prompt:           func(_ context.Context, _ *server.Request, p *mcp.Prompt) bool { return secret(p.Name) },
		Resource:         func(_ context.Context, _ *server.Request, r *mcp.Resource) bool { return secret(r.URI) },
		ResourceTemplate: func(_ context.Context, _ *server.Request, t *mcp.ResourceTemplate) bool { return secret(t.URITemplate) },
	}})
	for _, name := range []string{"public", "secret", "public2"} {
		addSecretItems(s, name)
	}
	return s
}

// addSecretItems registers a tool, a prompt, a resource and a template
// named after name.
func addSecretItems(s *server.Server, name string) {
	server.AddTool(s, &mcp.Tool{Name: name, Description: "d"}, func(context.Context, *server.Request, struct{}) (string, error) { return name, nil })
	s.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name}}}}, nil
	})
	read := func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: name}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "test://" + name, Name: name}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://" + name + "/{id}", Name: name}, read)
}

// removeSecretItems removes what addSecretItems registered.
func removeSecretItems(s *server.Server, name string) {
	s.RemoveTools(name)
	s.RemovePrompts(name)
	s.RemoveResources("test://" + name)
	s.RemoveResourceTemplates("test://" + name + "/{id}")
}

// visibleNames lists every page of each kind and returns the names seen.
func visibleNames(t *testing.T, cs *client.Session) map[string][]string {
	t.Helper()
	ctx := testCtx(t)
	return map[string][]string{
		"tools":     names(t, cs.Tools(ctx), func(x *mcp.Tool) string { return x.Name }),
		"prompts":   names(t, cs.Prompts(ctx), func(x *mcp.Prompt) string { return x.Name }),
		"resources": names(t, cs.Resources(ctx), func(x *mcp.Resource) string { return x.Name }),
		"templates": names(t, cs.ResourceTemplates(ctx), func(x *mcp.ResourceTemplate) string { return x.Name }),
	}
}

// names collects the names of what a list iterator yields.
func names[T any](t *testing.T, all iter.Seq2[*T, error], name func(*T) string) []string {
	t.Helper()
	var got []string
	for x, err := range all {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, name(x))
	}
	return got
}

// outcomes calls, gets and reads the items named name and returns what
// each answered, as text to compare.
func outcomes(t *testing.T, cs *client.Session, name string) []string {
	t.Helper()
	ctx := testCtx(t)
	show := func(res any, err error) string {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return fmt.Sprintf("error %d %s %s", je.Code, je.Message, je.Data)
		}
		if err != nil {
			return "error " + err.Error()
		}
		raw, _ := json.Marshal(res)
		return string(raw)
	}
	return []string{
		show(cs.CallTool(ctx, &mcp.CallToolParams{Name: name})),
		show(cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})),
		show(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://" + name})),
		show(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://" + name + "/1"})),
	}
}

func TestVisibility_AHiddenItemIsListedNowhereAndAnsweredAsAMissingOne(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		var granted atomic.Bool
		s := secretServer(&granted, server.SessionHooks{})
		cs := dialOver(t, tr, s, v, nil)
		want := []string{"public", "public2"}
		for kind, names := range visibleNames(t, cs) {
			if !slices.Equal(names, want) {
				t.Errorf("%s lists %v; want %v (page size 1, the secret one hidden)", kind, names, want)
			}
		}
		hidden := outcomes(t, cs, "secret")
		removeSecretItems(s, "secret")
		missing := outcomes(t, cs, "secret")
		for i := range hidden {
			if hidden[i] != missing[i] {
				t.Errorf("a hidden item is answered\n\t%s\nbut a missing one\n\t%s", hidden[i], missing[i])
			}
		}
		if !strings.HasPrefix(hidden[0], "error") {
			t.Errorf("calling the hidden tool answered %s; want the unknown tool's error", hidden[0])
		}
		addSecretItems(s, "secret")
		granted.Store(true)
		if got := outcomes(t, cs, "secret"); slices.ContainsFunc(got, func(o string) bool { return strings.HasPrefix(o, "error") }) {
			t.Errorf("once granted, the secret items answer %v; want results", got)
		}
		for kind, names := range visibleNames(t, cs) {
			if !slices.Contains(names, "secret") {
				t.Errorf("once granted, %s lists %v; want secret in it", kind, names)
			}
		}
	})
}

func TestVisibility_VisibilityChangedSendsListChanged(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		var granted atomic.Bool
		// A legacy session gets list_changed once initialized.
		initialized := make(chan struct{}, 1)
		s := secretServer(&granted, server.SessionHooks{Initialized: func(context.Context, *server.Request) { initialized <- struct{}{} }})
		changed := make(chan string, 16)
		cs := dialOver(t, tr, s, v, &client.Options{
			OnToolsListChanged:     func(context.Context, *mcp.ToolListChangedNotificationParams) { changed <- "tools" },
			OnPromptsListChanged:   func(context.Context, *mcp.PromptListChangedNotificationParams) { changed <- "prompts" },
			OnResourcesListChanged: func(context.Context, *mcp.ResourceListChangedNotificationParams) { changed <- "resources" },
		})
		ctx := testCtx(t)
		if mcp.IsModern(v) {
			sub, err := cs.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sub.Close() })
		} else {
			await(t, initialized, "notifications/initialized", func(struct{}) bool { return true })
		}
		granted.Store(true)
		s.VisibilityChanged()
		var backlog []string
		for _, kind := range []string{"tools", "prompts", "resources"} {
			awaitFrom(t, changed, &backlog, kind+" list_changed", func(k string) bool { return k == kind })
		}
		if got := visibleNames(t, cs)["tools"]; !slices.Contains(got, "secret") {
			t.Errorf("listing again after list_changed gives %v; want the secret tool", got)
		}
	})
}

func TestVisibility_DecidesPerCaller(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "vis", Version: "1"}, &server.Options{Logger: quiet, Visibility: server.Visibility{
		Tool: func(_ context.Context, r *server.Request, t *mcp.Tool) bool {
			return t.Name != "admin" || r.Principal() == "root"
		},
	}})
	addSecretItems(s, "admin")
	addSecretItems(s, "public")
	for _, who := range []string{"root", "guest"} {
		t.Run(who, func(t *testing.T) {
			clientEnd, serverEnd := pipeAs(t, s, who)
			cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: mcp.Version20251125, Logger: quiet}).Connect(testCtx(t), clientEnd)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close(); serverEnd.Close() })
			got := visibleNames(t, cs)["tools"]
			want := []string{"public"}
			if who == "root" {
				want = []string{"admin", "public"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s sees tools %v; want %v", who, got, want)
			}
		})
	}
}

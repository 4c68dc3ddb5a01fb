package server_test

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"log"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// A resource at a fixed URI, and a family of resources by URI template:
// a read that no fixed resource matches goes to the first template that
// does, with the template's variables.
func ExampleServer_AddResourceTemplate() {
	s := server.New(mcp.Implementation{Name: "docs", Version: "1.0.0"}, nil)
	s.AddResource(&mcp.Resource{URI: "docs://index", Name: "index", MIMEType: "text/plain"},
		func(ctx context.Context, r *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "chapters: intro, usage"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "docs://chapters/{name}", Name: "chapter", MIMEType: "text/plain"},
		func(ctx context.Context, r *server.Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
			if vars["name"] != "intro" && vars["name"] != "usage" {
				return nil, fmt.Errorf("chapter %q: %w", vars["name"], server.ErrResourceNotFound)
			}
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "the " + vars["name"] + " chapter"}}}, nil
		})

	ctx := context.Background()
	session := pipeClient(s, "", nil)
	defer session.Close()
	for res, err := range session.Resources(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("resource:", res.URI)
	}
	for tmpl, err := range session.ResourceTemplates(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("template:", tmpl.URITemplate)
	}
	for _, uri := range []string{"docs://index", "docs://chapters/usage", "docs://chapters/outro"} {
		res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			fmt.Println(uri, "→ error:", err)
			continue
		}
		fmt.Println(uri, "→", res.Contents[0].(*mcp.TextResourceContents).Text)
	}
	// Output:
	// resource: docs://index
	// template: docs://chapters/{name}
	// docs://index → chapters: intro, usage
	// docs://chapters/usage → the usage chapter
	// docs://chapters/outro → error: jsonrpc error -32602: Resource not found
}

// A prompt with a required argument: prompts/get fills in the messages.
func ExampleServer_AddPrompt() {
	s := server.New(mcp.Implementation{Name: "reviewer", Version: "1.0.0"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "review", Description: "Review a change",
		Arguments: []mcp.PromptArgument{{Name: "language", Required: true}}},
		func(ctx context.Context, r *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser,
				Content: &mcp.TextContent{Text: "Review this " + args["language"] + " change for bugs."}}}}, nil
		})

	ctx := context.Background()
	session := pipeClient(s, "", nil)
	defer session.Close()
	for p, err := range session.Prompts(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("prompt:", p.Name, "needs", p.Arguments[0].Name)
	}
	res, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"language": "Go"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Messages[0].Role+":", res.Messages[0].Content.(*mcp.TextContent).Text)
	// Output:
	// prompt: review needs language
	// user: Review this Go change for bugs.
}

type bookIn struct {
	Room string `json:"room"`
}

// A tool that asks the user to confirm with an elicitation. In a legacy
// session the question is a request to the client; in a modern request it
// goes out in an input_required result and the client's retry answers it;
// in a task, through the task. The handler's code is the same.
func ExampleRequest_Elicit() {
	s := server.New(mcp.Implementation{Name: "rooms", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "book", Description: "Books a room"},
		func(ctx context.Context, r *server.Request, in bookIn) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Book " + in.Room + "?",
				RequestedSchema: &mcp.ElicitSchema{Type: "object", Properties: mcp.ElicitProperties{
					{Name: "nights", Schema: mcp.PrimitiveSchema{Type: "integer"}}}}})
			if err != nil {
				return "", err
			}
			if res.Action != mcp.ElicitAccept {
				return "not booked", nil
			}
			return fmt.Sprintf("booked %s for %s nights", in.Room, res.Content["nights"]), nil
		})

	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		session := pipeClient(s, "", &client.Options{
			ProtocolVersion: version,
			ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				fmt.Println("the user is asked:", p.Message)
				return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"nights": stdjson.RawMessage("2")}}, nil
			},
		})
		out, err := client.CallTool[string](context.Background(), session, "book", bookIn{Room: "Ada"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(version+":", out)
		session.Close()
	}
	// Output:
	// the user is asked: Book Ada?
	// 2025-11-25: booked Ada for 2 nights
	// the user is asked: Book Ada?
	// 2026-07-28: booked Ada for 2 nights
}

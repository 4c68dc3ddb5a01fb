package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// readText is a resources/read result with one text item.
func readText(uri, mime, body string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: body}}}
}

// addResources registers the resources and the template of the resources-*
// scenarios. Subscriptions (resources/subscribe) are the library's.
func addResources(s *server.Server) {
	static := func(r *mcp.Resource, body string) {
		s.AddResource(r, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
			return readText(r.URI, r.MIMEType, body), nil
		})
	}
	static(&mcp.Resource{URI: "test://static-text", Name: "static-text", Title: "Static Text Resource",
		Description: "A static text resource for testing", MIMEType: "text/plain"},
		"This is the content of the static text resource.")
	static(&mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Title: "Watched Resource",
		Description: "A resource clients can subscribe to", MIMEType: "text/plain"},
		"Watched resource content")

	s.AddResource(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Title: "Static Binary Resource",
		Description: "A static binary resource (image) for testing", MIMEType: "image/png"},
		func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.BlobResourceContents{
				URI: "test://static-binary", MIMEType: "image/png", Blob: redPixelPNG,
			}}}, nil
		})

	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Title: "Resource Template",
		Description: "A resource template with parameter substitution", MIMEType: "application/json"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
			id := vars["id"]
			if id == "" || strings.ContainsAny(id, `"\`) {
				return nil, fmt.Errorf("%w: %s names no usable id", server.ErrResourceNotFound, uri)
			}
			return readText(uri, "application/json", fmt.Sprintf(`{"id":"%s","templateTest":true,"data":"Data for ID: %s"}`, id, id)), nil
		})
}

// addPrompts registers the prompts of the prompts-* scenarios.
func addPrompts(s *server.Server) {
	user := func(c mcp.Content) mcp.PromptMessage { return mcp.PromptMessage{Role: mcp.RoleUser, Content: c} }

	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
		func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{user(&mcp.TextContent{Text: "This is a simple prompt for testing."})}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		}},
		func(_ context.Context, _ *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{user(&mcp.TextContent{
				Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"]),
			})}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource",
		Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, _ *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(&mcp.EmbeddedResource{Resource: &mcp.TextResourceContents{URI: args["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
			}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
		func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"}),
				user(&mcp.TextContent{Text: "Please analyze the image above."}),
			}}, nil
		})
}

// completionWords are what completion/complete suggests for the arguments
// of test_prompt_with_arguments, filtered by the typed prefix.
var completionWords = []string{"paris", "park", "party", "test", "testing"}

// complete suggests the completionWords that start with the typed value.
func complete(_ context.Context, _ *server.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	values := []string{}
	if p.Ref.Type == mcp.ReferencePrompt && p.Ref.Name == "test_prompt_with_arguments" {
		for _, w := range completionWords {
			if strings.HasPrefix(w, p.Argument.Value) {
				values = append(values, w)
			}
		}
	}
	total := int64(len(values))
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: &total}}, nil
}

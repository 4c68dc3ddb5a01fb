package e2e

import (
	"bytes"
	"errors"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

func TestResources(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		ctx := ctxFor(t)
		var uris []string
		for r, err := range s.Resources(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if len(uris) != 3 || uris[0] != "res://text" || uris[1] != "res://blob" || uris[2] != "res://secret" {
			t.Errorf("resources %v, want res://text, res://blob, res://secret", uris)
		}
		if n := len(tp.sent(mcp.MethodResourcesList)); n != 2 {
			t.Errorf("3 resources took %d resources/list requests, want 2 pages", n)
		}
		var templates []string
		for rt, err := range s.ResourceTemplates(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, rt.URITemplate)
		}
		if len(templates) != 1 || templates[0] != "res://items/{id}" {
			t.Errorf("templates %v", templates)
		}

		res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "res://text"})
		if err != nil {
			t.Fatal(err)
		}
		if tc, ok := res.Contents[0].(*mcp.TextResourceContents); !ok || tc.Text != "hello" || tc.MIMEType != "text/plain" {
			t.Errorf("res://text = %+v", res.Contents[0])
		}
		if res.Cache != nil != (e.version == mcp.Version20260728) {
			t.Errorf("resources/read cache hints %+v at %s", res.Cache, e.version)
		}
		res, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "res://blob"})
		if err != nil {
			t.Fatal(err)
		}
		if bc, ok := res.Contents[0].(*mcp.BlobResourceContents); !ok || !bytes.Equal(bc.Blob, []byte{0, 1, 2, 255}) {
			t.Errorf("res://blob = %+v", res.Contents[0])
		}
		res, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "res://items/42"})
		if err != nil {
			t.Fatal(err)
		}
		if tc := res.Contents[0].(*mcp.TextResourceContents); tc.Text != "item 42" || tc.URI != "res://items/42" {
			t.Errorf("res://items/42 = %+v", tc)
		}
		for _, uri := range []string{"res://items/missing", "res://nowhere"} {
			_, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			var re *jsonrpc.Error
			if !errors.As(err, &re) || re.Code != mcp.ResourceNotFoundCode(e.version) {
				t.Errorf("%s: %v, want resource not found (%d at %s)", uri, err, mcp.ResourceNotFoundCode(e.version), e.version)
			}
		}
	})
}

func TestPromptsAndCompletion(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, _ := e.connect(t, nil)
		ctx := ctxFor(t)
		var names []string
		for p, err := range s.Prompts(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, p.Name)
		}
		if len(names) != 2 || names[0] != "greet" || names[1] != "confirm" {
			t.Errorf("prompts %v", names)
		}
		res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
		if err != nil {
			t.Fatal(err)
		}
		if tc, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Hello, Ada!" || res.Messages[0].Role != "user" {
			t.Errorf("greet = %+v", res.Messages)
		}
		_, err = s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
		var re *jsonrpc.Error
		if !errors.As(err, &re) || re.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("greet without its required argument: %v, want -32602", err)
		}

		cr, err := s.Complete(ctx, &mcp.CompleteParams{
			Ref:      mcp.Reference{Type: mcp.ReferencePrompt, Name: "greet"},
			Argument: mcp.CompleteArgument{Name: "name", Value: "al"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := cr.Completion.Values; len(got) != 2 || got[0] != "alice" || got[1] != "alan" || *cr.Completion.Total != 2 {
			t.Errorf("completion of al = %+v", cr.Completion)
		}
		if _, err := s.Complete(ctx, &mcp.CompleteParams{Ref: mcp.Reference{Type: mcp.ReferencePrompt, Name: "confirm"}, Argument: mcp.CompleteArgument{Name: "x"}}); !errors.As(err, &re) || re.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("completion of an unknown argument: %v, want the handler's -32602", err)
		}
	})
}

package main

import (
	"context"
	stdjson "encoding/json"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server/servertest"
)

// These tests check the fixtures themselves, in process and in both eras,
// so a broken fixture shows up in go test and not only as a conformance
// failure; the conformance suite (conformance/run.sh) checks the wire.

// connect returns a session with the fixture server over an in-memory pipe.
func connect(t *testing.T, version string, opts client.Options) *client.Session {
	t.Helper()
	opts.ProtocolVersion = version
	s, _ := servertest.Connect(t, newServer(slog.New(slog.NewTextHandler(io.Discard, nil))), &opts)
	return s
}

func textOf(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,64}$`)

func TestToolsAreDescribedAndWellNamed(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		s := connect(t, v, client.Options{})
		n := 0
		for tool, err := range s.Tools(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if !toolName.MatchString(tool.Name) || tool.Description == "" || len(tool.InputSchema) == 0 {
				t.Errorf("%s: tool %q needs a valid name, a description and an inputSchema", v, tool.Name)
			}
		}
		if n < 25 {
			t.Errorf("%s: only %d tools listed", v, n)
		}
	}
}

func TestProgressToolEchoesTokenInOrder(t *testing.T) {
	s := connect(t, mcp.Version20251125, client.Options{})
	var mu sync.Mutex
	var got []float64
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_tool_with_progress"},
		client.WithProgress(func(p *mcp.ProgressNotificationParams) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
		}))
	if err != nil || res.IsError {
		t.Fatalf("test_tool_with_progress: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != 0 || got[1] != 50 || got[2] != 100 {
		t.Errorf("progress = %v, want [0 50 100]", got)
	}
}

func TestErrorToolIsAToolError(t *testing.T) {
	s := connect(t, mcp.Version20251125, client.Options{})
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_error_handling"})
	if err != nil {
		t.Fatalf("test_error_handling must not be a protocol error: %v", err)
	}
	if !res.IsError || textOf(t, res) == "" {
		t.Errorf("result = %+v, want isError with a text", res)
	}
}

// TestInputRequiredToolsInBothEras drives the multi round-trip tools with
// a client whose handlers answer: over a legacy session the questions are
// requests, over a modern one input_required rounds the client retries.
func TestInputRequiredToolsInBothEras(t *testing.T) {
	opts := client.Options{
		ElicitForm: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			content := mcp.JSONObject{}
			for _, prop := range p.RequestedSchema.Properties {
				switch prop.Schema.Type {
				case "boolean":
					content[prop.Name] = stdjson.RawMessage(`true`)
				default:
					content[prop.Name] = stdjson.RawMessage(`"Alice"`)
				}
			}
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
		},
		CreateMessage: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: mcp.SamplingContents{&mcp.TextContent{Text: "Paris"}}}, nil
		},
		ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///a"}, {URI: "file:///b"}}}, nil
		},
	}
	want := map[string]string{
		"test_input_required_result_elicitation":     "Hello, Alice!",
		"test_input_required_result_sampling":        "Sampling result: Paris",
		"test_input_required_result_list_roots":      "Found 2 root(s)",
		"test_input_required_result_request_state":   "state-ok: requestState validated",
		"test_input_required_result_multiple_inputs": "Name: Alice; Greeting: Paris; Roots: 2",
		"test_input_required_result_multi_round":     "Multi-round complete for Alice who likes Alice",
		"test_input_required_result_tampered_state":  "integrity-ok: state verified",
		"test_input_required_result_capabilities":    "capabilities-ok: received elicit_input,sample_input",
	}
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		s := connect(t, v, opts)
		for name, text := range want {
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
			if err != nil {
				t.Errorf("%s: %s: %v", v, name, err)
				continue
			}
			if got := textOf(t, res); got != text || res.IsError {
				t.Errorf("%s: %s = %q (isError %v), want %q", v, name, got, res.IsError, text)
			}
		}
		got, err := s.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
		if err != nil {
			t.Fatalf("%s: test_input_required_result_prompt: %v", v, err)
		}
		if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Prompt with context: Alice" {
			t.Errorf("%s: prompt message = %#v", v, got.Messages[0].Content)
		}
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	s := connect(t, mcp.Version20260728, client.Options{})
	ctx := context.Background()
	read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/123/data"})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := read.Contents[0].(*mcp.TextResourceContents); !ok || !strings.Contains(tc.Text, `"id":"123"`) {
		t.Errorf("template read = %#v", read.Contents[0])
	}
	blob, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := blob.Contents[0].(*mcp.BlobResourceContents); !ok || len(b.Blob) == 0 || b.MIMEType != "image/png" {
		t.Errorf("binary read = %#v", blob.Contents[0])
	}
	p, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "x", "arg2": "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := p.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Prompt with arguments: arg1='x', arg2='y'" {
		t.Errorf("prompt = %#v", p.Messages[0].Content)
	}
	c, err := s.Complete(ctx, &mcp.CompleteParams{Ref: mcp.Reference{Type: mcp.ReferencePrompt, Name: "test_prompt_with_arguments"}, Argument: mcp.CompleteArgument{Name: "arg1", Value: "par"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Completion.Values, ",") != "paris,park,party" {
		t.Errorf("completion values = %v, want [paris park party]", c.Completion.Values)
	}
}

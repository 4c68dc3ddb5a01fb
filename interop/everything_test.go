package interop_test

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// startEverything starts @modelcontextprotocol/server-everything over stdio
// and connects weft's client to it with opts.
func startEverything(t *testing.T, ctx context.Context, opts *client.Options) *client.Session {
	t.Helper()
	tc := nodeToolchain(t)
	script := filepath.Join(tc.modules, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cmd := exec.Command(tc.node, script, "stdio")
	// server-everything does not exit when its stdin closes: keep the wait
	// for it short before it is killed.
	stream, err := transport.NewCommand(cmd, transport.WithStderr(logTo(t, "server-everything: ")), transport.WithGracePeriod(500*time.Millisecond))
	if err != nil {
		t.Fatalf("starting server-everything: %v", err)
	}
	session, err := client.New(mcp.Implementation{Name: "weft-interop", Version: "1.0.0"}, opts).Connect(ctx, stream)
	if err != nil {
		stream.Close()
		t.Fatalf("connecting to server-everything: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// toolText returns the concatenated text content of a tool result.
func toolText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// everythingLimit bounds a test's whole conversation with server-everything,
// an external process that is slow to answer on a loaded machine.
const everythingLimit = 5 * time.Minute

// waitForTools lists tools until all of names are there (server-everything
// registers its capability-dependent tools just after initialization), for
// as long as ctx lasts.
func waitForTools(t *testing.T, ctx context.Context, s *client.Session, names ...string) {
	t.Helper()
	for {
		var have []string
		for tool, err := range s.Tools(ctx) {
			if err != nil {
				t.Fatalf("listing tools: %v", err)
			}
			have = append(have, tool.Name)
		}
		missing := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(have, n) })
		if len(missing) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("server-everything never listed %v (%v); it lists %v", missing, context.Cause(ctx), have)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func call(t *testing.T, ctx context.Context, s *client.Session, name, args string, opts ...client.CallOption) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: stdjson.RawMessage(args)}, opts...)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("tools/call %s: the tool failed: %s", name, toolText(res))
	}
	return res
}

// TestClientAgainstServerEverythingStdio drives the reference TypeScript
// everything server with weft's client over stdio: version negotiation,
// tools (plain, with progress, with sampling, elicitation and roots asked of
// the client), resources, templates, prompts and cancellation.
func TestClientAgainstServerEverythingStdio(t *testing.T) {
	// One bound for the whole conversation with the external process, ample
	// on a loaded machine; each step waits for its own answer within it.
	ctx, cancel := context.WithTimeout(context.Background(), everythingLimit)
	defer cancel()

	var mu sync.Mutex
	var sampled []*mcp.CreateMessageParams
	var elicited []*mcp.ElicitParams
	rootsAsked := 0
	s := startEverything(t, ctx, &client.Options{
		CreateMessage: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			sampled = append(sampled, p)
			mu.Unlock()
			return &mcp.CreateMessageResult{
				Role:    mcp.RoleAssistant,
				Content: mcp.SamplingContents{&mcp.TextContent{Text: "weft-sampled-reply"}},
				Model:   "weft-test-model",
			}, nil
		},
		ElicitForm: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			mu.Lock()
			elicited = append(elicited, p)
			mu.Unlock()
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"name": stdjson.RawMessage(`"Ada Lovelace"`)}}, nil
		},
		ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			mu.Lock()
			rootsAsked++
			mu.Unlock()
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///weft/interop-root", Name: "weft-root"}}}, nil
		},
	})

	// server-everything is built on the TypeScript SDK 1.x, which speaks the
	// legacy era only: the client must have fallen back to initialize.
	if v := s.ProtocolVersion(); v != "2025-11-25" {
		t.Errorf("negotiated protocol version %q, want 2025-11-25", v)
	}
	if s.IsModern() {
		t.Error("session is modern against a legacy-only server")
	}
	if name := s.ServerInfo().Name; name == "" {
		t.Error("server-everything's serverInfo has no name")
	}
	if s.ServerCapabilities().Tools == nil {
		t.Error("server-everything declared no tools capability")
	}

	waitForTools(t, ctx, s, "echo", "get-sum", "trigger-long-running-operation",
		"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list")

	t.Run("plain tools", func(t *testing.T) {
		if got := toolText(call(t, ctx, s, "echo", `{"message":"hello from weft"}`)); got != "Echo: hello from weft" {
			t.Errorf("echo returned %q", got)
		}
		if got := toolText(call(t, ctx, s, "get-sum", `{"a":2,"b":3}`)); !strings.Contains(got, "is 5") {
			t.Errorf("get-sum returned %q, want the sum 5", got)
		}
	})

	t.Run("bad arguments are a tool error", func(t *testing.T) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: stdjson.RawMessage(`{"a":"two"}`)})
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			// The spec also allows a JSON-RPC error for invalid arguments.
		case err != nil:
			t.Fatalf("tools/call with bad arguments failed without a JSON-RPC error: %v", err)
		case !res.IsError:
			t.Errorf("get-sum with a string argument succeeded: %s", toolText(res))
		}
	})

	t.Run("progress", func(t *testing.T) {
		var pmu sync.Mutex
		var got []mcp.ProgressNotificationParams
		res := call(t, ctx, s, "trigger-long-running-operation", `{"duration":0.3,"steps":3}`,
			client.WithProgress(func(p *mcp.ProgressNotificationParams) {
				pmu.Lock()
				got = append(got, *p)
				pmu.Unlock()
			}))
		if !strings.Contains(toolText(res), "completed") {
			t.Errorf("long running operation returned %q", toolText(res))
		}
		pmu.Lock()
		defer pmu.Unlock()
		if len(got) != 3 {
			t.Fatalf("got %d progress notifications, want 3: %+v", len(got), got)
		}
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total != 3 {
				t.Errorf("progress %d = %v/%v, want %d/3", i, p.Progress, p.Total, i+1)
			}
		}
	})

	t.Run("sampling", func(t *testing.T) {
		res := call(t, ctx, s, "trigger-sampling-request", `{"prompt":"say something","maxTokens":20}`)
		if !strings.Contains(toolText(res), "weft-sampled-reply") {
			t.Errorf("the tool result does not carry the client's sample: %q", toolText(res))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(sampled) != 1 || sampled[0].MaxTokens != 20 {
			t.Fatalf("sampling requests seen: %+v", sampled)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		res := call(t, ctx, s, "trigger-elicitation-request", `{}`)
		if !strings.Contains(toolText(res), "Ada Lovelace") {
			t.Errorf("the tool result does not carry the elicited name: %q", toolText(res))
		}
		mu.Lock()
		defer mu.Unlock()
		if len(elicited) != 1 || elicited[0].RequestedSchema == nil {
			t.Fatalf("elicitation requests seen: %+v", elicited)
		}
	})

	t.Run("roots", func(t *testing.T) {
		res := call(t, ctx, s, "get-roots-list", `{}`)
		if !strings.Contains(toolText(res), "file:///weft/interop-root") {
			t.Errorf("the tool result does not list the client's root: %q", toolText(res))
		}
		mu.Lock()
		defer mu.Unlock()
		if rootsAsked == 0 {
			t.Error("the server never asked for roots")
		}
	})

	t.Run("resources", func(t *testing.T) {
		var first *mcp.Resource
		n := 0
		for r, err := range s.Resources(ctx) {
			if err != nil {
				t.Fatalf("listing resources: %v", err)
			}
			if first == nil {
				first = r
			}
			n++
		}
		if first == nil {
			t.Fatal("server-everything listed no resources")
		}
		read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: first.URI})
		if err != nil {
			t.Fatalf("reading %s: %v", first.URI, err)
		}
		if len(read.Contents) == 0 {
			t.Fatalf("reading %s returned no contents", first.URI)
		}

		templates, err := s.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatalf("listing resource templates: %v", err)
		}
		var textTemplate string
		for _, tpl := range templates.ResourceTemplates {
			if strings.Contains(tpl.URITemplate, "/text/{") {
				textTemplate = tpl.URITemplate
			}
		}
		if textTemplate == "" {
			t.Fatalf("no text resource template among %+v", templates.ResourceTemplates)
		}
		uri := textTemplate[:strings.Index(textTemplate, "{")] + "7"
		read, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("reading templated %s: %v", uri, err)
		}
		text, ok := read.Contents[0].(*mcp.TextResourceContents)
		if !ok || !strings.Contains(text.Text, "Resource 7") {
			t.Errorf("templated read of %s = %#v, want text naming resource 7", uri, read.Contents[0])
		}
	})

	t.Run("prompts", func(t *testing.T) {
		var names []string
		for p, err := range s.Prompts(ctx) {
			if err != nil {
				t.Fatalf("listing prompts: %v", err)
			}
			names = append(names, p.Name)
		}
		if !slices.Contains(names, "args-prompt") {
			t.Fatalf("prompts %v lack args-prompt", names)
		}
		got, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt", Arguments: map[string]string{"city": "Lisbon"}})
		if err != nil {
			t.Fatalf("prompts/get args-prompt: %v", err)
		}
		if len(got.Messages) == 0 {
			t.Fatal("args-prompt rendered no messages")
		}
		if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "Lisbon") {
			t.Errorf("args-prompt message = %#v, want the city", got.Messages[0].Content)
		}
	})

	t.Run("cancellation", func(t *testing.T) {
		callCtx, stop := context.WithCancel(ctx)
		defer stop()
		started := make(chan struct{})
		var once sync.Once
		done := make(chan error, 1)
		go func() {
			_, err := s.CallTool(callCtx, &mcp.CallToolParams{
				Name:      "trigger-long-running-operation",
				Arguments: stdjson.RawMessage(`{"duration":30,"steps":30}`),
			}, client.WithProgress(func(*mcp.ProgressNotificationParams) { once.Do(func() { close(started) }) }))
			done <- err
		}()
		// The operation reports progress every second for 30 s: wait for
		// the first report, or for the call to end without one.
		select {
		case <-started:
		case err := <-done:
			t.Fatalf("the long running operation ended before reporting progress: %v", err)
		}
		stop()
		// Cancelling is the client's own doing: the call returns without
		// waiting for the server; ctx only bounds a hung client.
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled call returned %v, want an error wrapping context.Canceled", err)
			}
		case <-ctx.Done():
			t.Fatalf("the cancelled call had not returned when the test's %v bound ran out", everythingLimit)
		}
		// The session keeps working after a cancellation.
		if got := toolText(call(t, ctx, s, "echo", `{"message":"after cancel"}`)); got != "Echo: after cancel" {
			t.Errorf("echo after cancellation returned %q", got)
		}
	})
}

package interop_test

import (
	"bufio"
	"context"
	stdjson "encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// sdk2ServerCommand returns the command that runs interop/js/sdk2-server.cjs,
// the TypeScript SDK v2 server, with mode "--stdio" or "--http".
func sdk2ServerCommand(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	tc := nodeToolchain(t)
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command(tc.node, filepath.Join(filepath.Dir(file), "js", "sdk2-server.cjs"), mode)
	cmd.Env = append(cmd.Environ(), "NODE_PATH="+tc.modules)
	return cmd
}

// connectSDK2Stdio starts the TypeScript SDK v2 server over stdio and
// connects weft's client to it with opts.
func connectSDK2Stdio(t *testing.T, ctx context.Context, opts *client.Options) *client.Session {
	t.Helper()
	stream, err := transport.NewCommand(sdk2ServerCommand(t, "--stdio"),
		transport.WithStderr(logTo(t, "sdk2-server: ")), transport.WithGracePeriod(2*time.Second))
	if err != nil {
		t.Fatalf("starting the TypeScript SDK v2 server: %v", err)
	}
	session, err := client.New(mcp.Implementation{Name: "weft-interop", Version: "1.0.0"}, opts).Connect(ctx, stream)
	if err != nil {
		stream.Close()
		t.Fatalf("connecting to the TypeScript SDK v2 server over stdio: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// connectSDK2HTTP starts the TypeScript SDK v2 server on a loopback port
// and connects weft's client to it over Streamable HTTP with opts.
func connectSDK2HTTP(t *testing.T, ctx context.Context, opts *client.Options) *client.Session {
	t.Helper()
	cmd := sdk2ServerCommand(t, "--http")
	cmd.Stderr = logTo(t, "sdk2-server: ")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the TypeScript SDK v2 server: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close() // the server exits when its stdin ends
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	urls := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		urls <- strings.TrimSpace(line)
	}()
	var url string
	select {
	case url = <-urls:
	case <-ctx.Done():
		t.Fatal("the TypeScript SDK v2 server did not print its URL")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("the TypeScript SDK v2 server printed %q, not its URL", url)
	}
	session, err := client.New(mcp.Implementation{Name: "weft-interop", Version: "1.0.0"}, opts).
		Connect(ctx, streamable.NewClient(url, nil))
	if err != nil {
		t.Fatalf("connecting to the TypeScript SDK v2 server at %s: %v", url, err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// sdk2ClientOptions answers the server's elicitation with a name and
// records the questions asked.
func sdk2ClientOptions(version string, asked *[]string) *client.Options {
	var mu sync.Mutex
	return &client.Options{
		ProtocolVersion: version,
		// The probe waits on a Node.js process that may still be starting
		// on a busy machine; a short probe would take it for a legacy server.
		ProbeTimeout: time.Minute,
		ElicitForm: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			mu.Lock()
			*asked = append(*asked, p.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"name": stdjson.RawMessage(`"Grace"`)}}, nil
		},
	}
}

// exerciseSDK2Server drives the TypeScript SDK v2 fixture with weft's client
// and asserts every answer: tools (structured output, progress, an
// elicitation, an unknown tool, cancellation), resources, a template and a
// prompt.
func exerciseSDK2Server(t *testing.T, ctx context.Context, s *client.Session, wantVersion string, asked *[]string) {
	t.Helper()
	if got := s.ProtocolVersion(); got != wantVersion {
		t.Errorf("negotiated %q, want %q", got, wantVersion)
	}
	if info := s.ServerInfo(); info.Name != "ts2-interop-server" || info.Version != "2.0.0" {
		t.Errorf("serverInfo = %+v", info)
	}
	var names []string
	for tool, err := range s.Tools(ctx) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		names = append(names, tool.Name)
	}
	for _, want := range []string{"echo", "add", "countdown", "ask_name", "wait_for_cancel", "cancellations"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %v, missing %s", names, want)
		}
	}

	if got := toolText(call(t, ctx, s, "echo", `{"text":"hi from weft"}`)); got != "echo: hi from weft" {
		t.Errorf("echo answered %q", got)
	}
	var sum struct {
		Sum float64 `json:"sum"`
	}
	add := call(t, ctx, s, "add", `{"a":2,"b":3}`)
	if err := stdjson.Unmarshal(add.StructuredContent, &sum); err != nil || sum.Sum != 5 {
		t.Errorf("add: structuredContent %s (%v), want {sum: 5}", add.StructuredContent, err)
	}

	var progress []*mcp.ProgressNotificationParams
	countdown := call(t, ctx, s, "countdown", `{"steps":3}`, client.WithProgress(func(p *mcp.ProgressNotificationParams) {
		progress = append(progress, p)
	}))
	if toolText(countdown) != "done" || len(progress) != 3 {
		t.Errorf("countdown answered %q after %d progress notifications, want done after 3", toolText(countdown), len(progress))
	}
	for i, p := range progress {
		if p.Progress != float64(i+1) || p.Total != 3 || p.Message != "step "+string(rune('1'+i)) {
			t.Errorf("progress %d = %+v", i, p)
		}
	}

	if got := toolText(call(t, ctx, s, "ask_name", `{}`)); got != "Hello, Grace!" || len(*asked) != 1 || (*asked)[0] != "What is your name?" {
		t.Errorf("ask_name answered %q after the questions %q, want one question and the greeting", got, *asked)
	}

	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: stdjson.RawMessage(`{}`)})
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		if rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("calling an unknown tool gave error %d, want -32602", rpcErr.Code)
		}
	case err != nil:
		t.Errorf("calling an unknown tool: %v", err)
	case !res.IsError:
		t.Errorf("calling an unknown tool succeeded: %s", toolText(res))
	}

	var uris []string
	for r, err := range s.Resources(ctx) {
		if err != nil {
			t.Fatalf("listing resources: %v", err)
		}
		uris = append(uris, r.URI)
	}
	if !slices.Equal(uris, []string{"interop://static/hello"}) {
		t.Errorf("resources/list = %v", uris)
	}
	var templates []string
	for rt, err := range s.ResourceTemplates(ctx) {
		if err != nil {
			t.Fatalf("listing resource templates: %v", err)
		}
		templates = append(templates, rt.URITemplate)
	}
	if !slices.Equal(templates, []string{"interop://items/{id}"}) {
		t.Errorf("resources/templates/list = %v", templates)
	}
	for uri, want := range map[string]string{"interop://static/hello": "hello from TypeScript", "interop://items/42": "item 42"} {
		read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("reading %s: %v", uri, err)
		}
		if len(read.Contents) != 1 {
			t.Fatalf("reading %s gave %d contents", uri, len(read.Contents))
		}
		if tc, ok := read.Contents[0].(*mcp.TextResourceContents); !ok || tc.Text != want || tc.URI != uri {
			t.Errorf("reading %s gave %#v, want the text %q", uri, read.Contents[0], want)
		}
	}

	prompt, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greeting", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatalf("prompts/get greeting: %v", err)
	}
	if len(prompt.Messages) != 1 || prompt.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("prompts/get greeting = %+v", prompt)
	}
	if tc, ok := prompt.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Hello, Ada!" {
		t.Errorf("prompts/get greeting content = %#v", prompt.Messages[0].Content)
	}

	checkSDK2Cancellation(t, ctx, s)
	if got := toolText(call(t, ctx, s, "echo", `{"text":"still here"}`)); got != "echo: still here" {
		t.Errorf("echo after the cancellation answered %q", got)
	}
}

// checkSDK2Cancellation cancels a call once the tool reports it started and
// waits, as long as ctx lasts, for the server to count the cancelled handler.
func checkSDK2Cancellation(t *testing.T, ctx context.Context, s *client.Session) {
	t.Helper()
	count := func() string { return toolText(call(t, ctx, s, "cancellations", `{}`)) }
	before := count()
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err := s.CallTool(callCtx, &mcp.CallToolParams{Name: "wait_for_cancel", Arguments: stdjson.RawMessage(`{}`)},
		client.WithProgress(func(*mcp.ProgressNotificationParams) { cancel() }))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
	}
	// The server counts the cancellation when its handler has stopped, a
	// moment after the notification: ask until it has, within the test's
	// bound.
	for count() == before {
		select {
		case <-ctx.Done():
			t.Fatalf("the server never saw the cancellation (its count stayed %s until %v)", before, context.Cause(ctx))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestClientAgainstTypeScriptV2Server drives the TypeScript SDK v2 server
// with weft's client on 2026-07-28, discovered and pinned, over stdio and
// Streamable HTTP, and on 2025-11-25 over stdio. (Over HTTP that SDK serves
// the legacy era statelessly, one server instance per POST, so it cannot
// ask the client anything there.)
func TestClientAgainstTypeScriptV2Server(t *testing.T) {
	connects := map[string]func(*testing.T, context.Context, *client.Options) *client.Session{
		"stdio": connectSDK2Stdio, "http": connectSDK2HTTP,
	}
	for _, wire := range []string{"stdio", "http"} {
		pins := []string{"", mcp.LatestVersion}
		if wire == "stdio" {
			pins = append(pins, mcp.LatestLegacyVersion)
		}
		for _, pin := range pins {
			name, want := wire+"/discovered", mcp.LatestVersion
			if pin != "" {
				name, want = wire+"/"+pin, pin
			}
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var asked []string
				s := connects[wire](t, ctx, sdk2ClientOptions(pin, &asked))
				exerciseSDK2Server(t, ctx, s, want, &asked)
			})
		}
	}
}

package interop_test

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// inspectorCLI runs the MCP Inspector's command line (mcp-inspector --cli)
// against the server the target arguments name, with args, and returns the
// "result" member of the JSON it prints. The Inspector keeps its catalog
// and secrets under HOME, here a folder of the test's own.
func inspectorCLI(t *testing.T, target []string, args ...string) stdjson.RawMessage {
	t.Helper()
	tc := nodeToolchain(t)
	launcher := filepath.Join(tc.modules, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tc.node, append(append([]string{launcher, "--cli", "--format", "json"}, target...), args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = logTo(t, "inspector: ")
	if err := cmd.Run(); err != nil {
		t.Fatalf("the Inspector (%s) failed (%v): %s", strings.Join(args, " "), err, stdout.String())
	}
	var out struct {
		Result stdjson.RawMessage `json:"result"`
	}
	if err := stdjson.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Result) == 0 {
		t.Fatalf("the Inspector (%s) printed no result (%v): %q", strings.Join(args, " "), err, stdout.String())
	}
	return out.Result
}

// TestInspectorCLI: the MCP Inspector's command line lists and calls the
// interop fixture's tools, reads its resource and gets its prompt, in both
// eras, over Streamable HTTP and stdio.
func TestInspectorCLI(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, wire := range []string{"http", "stdio"} {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(wire+"/"+era, func(t *testing.T) {
				var target []string
				if wire == "http" {
					target = []string{"--server-url", serveHTTP(t)}
				} else {
					// The Inspector gives a stdio server only the
					// environment -e names. Should serveEnv not reach
					// it, -test.run keeps this test binary from running
					// the tests (and the Inspector) again.
					target = []string{"--transport", "stdio", "-e", serveEnv + "=stdio", self, "-test.run=^$"}
				}
				run := func(args ...string) stdjson.RawMessage {
					return inspectorCLI(t, target, append([]string{"--protocol-era", era}, args...)...)
				}
				var tools struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				}
				if err := stdjson.Unmarshal(run("--method", "tools/list"), &tools); err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range tools.Tools {
					names = append(names, tool.Name)
				}
				for _, want := range []string{"echo", "add", "countdown", "slow_echo"} {
					if !slices.Contains(names, want) {
						t.Errorf("tools/list = %v, missing %s", names, want)
					}
				}
				var echo struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				}
				if err := stdjson.Unmarshal(run("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi"), &echo); err != nil ||
					len(echo.Content) != 1 || echo.Content[0].Text != "echo: hi" {
					t.Errorf("echo answered %+v (%v)", echo, err)
				}
				var add struct {
					StructuredContent struct {
						Sum float64 `json:"sum"`
					} `json:"structuredContent"`
				}
				if err := stdjson.Unmarshal(run("--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=3"), &add); err != nil || add.StructuredContent.Sum != 5 {
					t.Errorf("add answered %+v (%v)", add, err)
				}
				var read struct {
					Contents []struct {
						Text string `json:"text"`
					} `json:"contents"`
				}
				if err := stdjson.Unmarshal(run("--method", "resources/read", "--uri", "interop://items/7"), &read); err != nil ||
					len(read.Contents) != 1 || read.Contents[0].Text != "item 7" {
					t.Errorf("resources/read answered %+v (%v)", read, err)
				}
				var prompt struct {
					Messages []struct {
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"messages"`
				}
				if err := stdjson.Unmarshal(run("--method", "prompts/get", "--prompt-name", "greeting", "--prompt-args", "name=Ada"), &prompt); err != nil ||
					len(prompt.Messages) != 1 || prompt.Messages[0].Content.Text != "Hello, Ada!" {
					t.Errorf("prompts/get answered %+v (%v)", prompt, err)
				}
			})
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// The READMEs' Go snippets are checked here: each ```go block of README.md
// and cmd/weft/README.md is a whole program (package main) that must build
// in the workspace, and, run as a stdio MCP server, must answer a client
// and exit 0 with nothing on stderr when the client leaves. A block that is
// only a fragment says so on the line before its fence, with
// fragmentMarker; it is not built.

// fragmentMarker marks a ```go block of a README that is not a whole
// program.
const fragmentMarker = "<!-- fragment -->"

// readmes are the READMEs whose snippets and commands are checked, relative
// to this package's folder.
var readmes = []string{"../../README.md", "README.md"}

// snippet is one ```go block of a README.
type snippet struct {
	file     string
	line     int // of the opening fence
	fragment bool
	code     string
}

// goSnippets returns the ```go blocks of the markdown file path.
func goSnippets(t *testing.T, path string) []snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{file: path, line: n, fragment: strings.TrimSpace(prev) == fragmentMarker}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: the ```go block is never closed", path, cur.line)
	}
	return out
}

// serverSnippet is the first whole program among the top README's Go
// snippets: the server a user writes.
func serverSnippet(t *testing.T) string {
	t.Helper()
	for _, sn := range goSnippets(t, "../../README.md") {
		if !sn.fragment {
			return sn.code
		}
	}
	t.Fatal("README.md has no whole-program Go snippet")
	return ""
}

// TestReadmeSnippets builds every whole-program Go snippet of the READMEs
// and runs it as a stdio MCP server: a client lists its tools and calls
// the first with the arguments its example shows, then leaves; the server
// must exit 0 with nothing on stderr (a log.Fatal of a nil error would
// print "<nil>" and exit 1).
func TestReadmeSnippets(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the READMEs' snippets: %v", err)
	}
	pkgDir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	built := 0
	for _, readme := range readmes {
		for i, sn := range goSnippets(t, readme) {
			name := fmt.Sprintf("%s:%d", filepath.Base(readme), sn.line)
			if sn.fragment {
				continue
			}
			if !strings.HasPrefix(sn.code, "package main\n") {
				t.Errorf("%s: a Go snippet must be a whole program (package main first) or be marked %s on the line before its fence", name, fragmentMarker)
				continue
			}
			// The snippet is built as a package of this module, added
			// through an overlay, so it resolves weft's packages through
			// the workspace as a user's program resolves them through its
			// go.mod.
			dir := t.TempDir()
			src := filepath.Join(dir, "main.go")
			if err := os.WriteFile(src, []byte(sn.code), 0o600); err != nil {
				t.Fatal(err)
			}
			pkg := filepath.Join(pkgDir, "internal", fmt.Sprintf("readmesnippet%d", i))
			overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(pkg, "main.go"): src}})
			if err != nil {
				t.Fatal(err)
			}
			overlayFile := filepath.Join(dir, "overlay.json")
			if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "snippet")
			build := exec.Command(goCmd, "build", "-overlay", overlayFile, "-o", bin, "./"+filepath.Join("internal", filepath.Base(pkg)))
			if out, err := build.CombinedOutput(); err != nil {
				t.Errorf("%s: the snippet does not build: %v\n%s", name, err, out)
				continue
			}
			built++
			runSnippetServer(t, name, bin)
		}
	}
	if built == 0 {
		t.Fatal("no Go snippet was built: did the READMEs move?")
	}
}

// runSnippetServer starts bin as a stdio MCP server, calls its first tool
// with a text argument, and checks that the server exits cleanly once the
// client leaves.
func runSnippetServer(t *testing.T, name, bin string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.Command(bin)
	stream, err := transport.NewCommand(cmd, transport.WithStderr(&stderr), transport.WithGracePeriod(30*time.Second))
	if err != nil {
		t.Fatalf("%s: starting the snippet: %v", name, err)
	}
	s, err := client.New(mcp.Implementation{Name: "readme-test", Version: "1"}, nil).Connect(ctx, stream)
	if err != nil {
		t.Fatalf("%s: connecting to the snippet's server: %v (stderr: %s)", name, err, stderr.String())
	}
	var first *mcp.Tool
	for tool, err := range s.Tools(ctx) {
		if err != nil {
			t.Fatalf("%s: listing tools: %v", name, err)
		}
		first = tool
		break
	}
	if first == nil {
		t.Fatalf("%s: the snippet's server offers no tool", name)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: first.Name, Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		t.Fatalf("%s: calling %s: %v", name, first.Name, err)
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != "hello" || res.IsError {
		t.Errorf("%s: %s text=hello answered %+v, want the text hello", name, first.Name, res.Content)
	}
	if err := s.Close(); err != nil {
		t.Errorf("%s: the server did not exit cleanly when the client left: %v (stderr: %q)", name, err, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 || stderr.Len() > 0 {
		t.Errorf("%s: the server exited %d with stderr %q, want 0 and nothing", name, code, stderr.String())
	}
}

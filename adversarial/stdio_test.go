package adversarial

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// startStdio starts the fixture as a subprocess (this test binary) serving
// stdio, and returns a peer at v that writes raw lines; the legacy
// handshake is the caller's.
func startStdio(t *testing.T, v string) *peer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// A race-enabled binary sleeps a second at exit unless told not to.
	cmd.Env = append(os.Environ(), stdioServerEnv+"=1", "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := newPeer(t, v, func(t *testing.T, body io.Reader) int {
		if _, err := io.Copy(in, io.MultiReader(body, strings.NewReader("\n"))); err != nil {
			t.Fatalf("writing to the server: %v", err)
		}
		return 0
	})
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() {
		in.Close()
		for range p.lines { // the server's output ends once it exits
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("the stdio server exited with %v; stderr:\n%s", err, stderr)
		}
	})
	return p
}

// toolCall returns a tools/call request at version v.
func toolCall(v, id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, id, tool, args, metaFor(v))
}

// stdioVersions are the versions the corpus is sent at over stdio: the one
// with batches, the last legacy one and the modern one.
var stdioVersions = []string{mcp.Version20250326, mcp.Version20251125, mcp.Version20260728}

// TestStdioAnswersBadInputAndKeepsServing sends the corpus to a stdio
// server subprocess: each case gets the answers it must, a valid request
// right after it is served, and a call in flight since before the attack
// completes with its own result.
func TestStdioAnswersBadInputAndKeepsServing(t *testing.T) {
	for _, v := range stdioVersions {
		t.Run(v, func(t *testing.T) {
			p := startStdio(t, v)
			if !mcp.IsModern(v) {
				p.initialize()
			}
			p.send(strings.NewReader(toolCall(v, `"bystander"`, "slow", `{"tag":"stdio"}`)))
			for _, c := range corpus {
				t.Run(c.name, func(t *testing.T) {
					p.t = t
					want, _ := c.wantFor(v)
					r, _ := p.attack(strings.NewReader(c.body(v)), len(want))
					c.check(t, v, r)
				})
			}
			t.Run("100 MB message", func(t *testing.T) {
				p.t = t
				r, _ := p.attack(newHugeBody(v, hugeBodySize), 1)
				oversized := badInput{want: invalidNoID}
				oversized.check(t, v, r)
			})
			p.t = t
			p.send(strings.NewReader(toolCall(v, `"release"`, "release", `{"tag":"stdio"}`)))
			wantText(t, p.await(`"release"`), "released stdio")
			wantText(t, p.await(`"bystander"`), "slow stdio done")
		})
	}
}

// TestStdioRequestBeforeInitialize sends a request before initialize to a
// legacy stdio server: it is refused, and the session can still be
// initialized and used.
func TestStdioRequestBeforeInitialize(t *testing.T) {
	refusedBeforeInitialize(t, startStdio(t, mcp.Version20251125))
}

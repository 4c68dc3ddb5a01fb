package server

import (
	"context"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// logServer has a tool that logs one message at each of three levels.
func logServer(t *testing.T) *Server {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "log", Description: "Logs."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelError} {
			if err := r.Log(ctx, l, "tool", map[string]string{"level": string(l)}); err != nil {
				return "", err
			}
		}
		if err := r.Log(ctx, "loud", "tool", "x"); err == nil {
			return "", nil // an invalid level must be refused
		}
		return "logged", nil
	})
	return s
}

// levels returns the levels of the log messages queued now.
func levels(t *testing.T, c *testClient) string {
	var got []string
	for {
		select {
		case n := <-c.notes:
			if n.Method != mcp.NotificationMessage || member(t, n.Params, "logger") != `"tool"` {
				t.Fatalf("unexpected %s %s", n.Method, n.Params)
			}
			got = append(got, strings.Trim(member(t, n.Params, "level"), `"`))
		default:
			return strings.Join(got, ",")
		}
	}
}

func TestLogging_LegacyRespectsSetLevel(t *testing.T) {
	s := logServer(t)
	for _, v := range legacyVersions {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, `{}`, nil)
			if res := c.mustCall("tools/call", `{"name":"log"}`); !strings.Contains(string(res), "logged") {
				t.Fatalf("result %s", res)
			}
			if got := levels(t, c); got != "" {
				t.Errorf("before logging/setLevel, got log messages %s", got)
			}
			if res := c.mustCall("logging/setLevel", `{"level":"info"}`); string(res) != `{}` {
				t.Errorf("setLevel answered %s", res)
			}
			c.mustCall("tools/call", `{"name":"log"}`)
			if got := levels(t, c); got != "info,error" {
				t.Errorf("at level info got %q", got)
			}
			c.mustCall("logging/setLevel", `{"level":"debug"}`)
			c.mustCall("tools/call", `{"name":"log"}`)
			if got := levels(t, c); got != "debug,info,error" {
				t.Errorf("at level debug got %q", got)
			}
			if e := c.callErr("logging/setLevel", `{"level":"loud"}`); e.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("an invalid level: %v", e)
			}
		})
	}
}

func TestLogging_ModernOnlyWithLogLevelInMeta(t *testing.T) {
	c := open(t, logServer(t), mcp.Version20260728, `{}`, nil)
	c.mustCall("tools/call", `{"name":"log"}`)
	if got := levels(t, c); got != "" {
		t.Errorf("without _meta logLevel got %q", got)
	}
	if _, err := c.rawCall("tools/call", c.withMeta(`{"name":"log"}`, `"io.modelcontextprotocol/logLevel":"error"`)); err != nil {
		t.Fatal(err)
	}
	if got := levels(t, c); got != "error" {
		t.Errorf("at logLevel error got %q", got)
	}
	c.mustCall("tools/call", `{"name":"log"}`)
	if got := levels(t, c); got != "" {
		t.Errorf("the level of one request leaked into the next: %q", got)
	}
}

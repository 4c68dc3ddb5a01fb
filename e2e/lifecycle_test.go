package e2e

import (
	"errors"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

func TestConnectDiscoversTheModernEra(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			tp := newTap(dial(t, tr))
			s, err := client.New(clientInfo, nil).Connect(ctxFor(t), tp)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !s.IsModern() || s.ProtocolVersion() != mcp.LatestVersion {
				t.Fatalf("discovered %s", s.ProtocolVersion())
			}
			if s.ServerInfo().Name != "weft-e2e" || s.Instructions() == "" || s.ServerCapabilities().Tools == nil {
				t.Errorf("server info %+v, instructions %q, capabilities %+v", s.ServerInfo(), s.Instructions(), s.ServerCapabilities())
			}
			if n := len(tp.sent(mcp.MethodInitialize)); n != 0 {
				t.Errorf("a modern connection sent initialize %d times", n)
			}
			if got := text(t, callTool(t, s, "add", `{"a":1,"b":1}`)); got != `{"sum":2}` {
				t.Errorf("add = %s", got)
			}
		})
	}
}

// Ping exists only in the legacy era and server/discover only in the modern
// one; each session refuses the other era's method without sending it.
func TestPingAndDiscover(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		ctx := ctxFor(t)
		res, discoverErr := s.Discover(ctx)
		pingErr := s.Ping(ctx)
		if !s.IsModern() {
			if pingErr != nil || !errors.Is(discoverErr, client.ErrNotInVersion) {
				t.Fatalf("legacy: Ping = %v, Discover = %v; want success and ErrNotInVersion", pingErr, discoverErr)
			}
			if len(tp.sent(mcp.MethodPing)) != 1 || len(tp.sent(mcp.MethodServerDiscover)) != 0 {
				t.Errorf("legacy: sent %d pings and %d discovers", len(tp.sent(mcp.MethodPing)), len(tp.sent(mcp.MethodServerDiscover)))
			}
			return
		}
		if discoverErr != nil || !errors.Is(pingErr, client.ErrNotInVersion) {
			t.Fatalf("modern: Discover = %v, Ping = %v; want success and ErrNotInVersion", discoverErr, pingErr)
		}
		if len(res.SupportedVersions) == 0 || res.SupportedVersions[0] != mcp.Version20260728 || res.Cache == nil {
			t.Errorf("discover result %+v", res)
		}
		if len(tp.sent(mcp.MethodPing)) != 0 {
			t.Error("a modern session sent ping")
		}
	})
}

func TestSessionEndsWhenTheServerGoesAway(t *testing.T) {
	forEach(t, []string{mcp.Version20251125, mcp.Version20260728}, func(t *testing.T, e env) {
		tp := newTap(dial(t, e.transport))
		s, err := client.New(clientInfo, &client.Options{ProtocolVersion: e.version}).Connect(ctxFor(t), tp)
		if err != nil {
			t.Fatal(err)
		}
		tp.Stream.Close() // the transport goes away under the session
		if err := s.Wait(); err == nil || !isClosed(err) {
			t.Fatalf("Wait = %v, want the connection's end", err)
		}
		if _, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "add"}); !isClosed(err) {
			t.Errorf("a call after the end returned %v, want a closed-connection error", err)
		}
	})
}

// isClosed reports whether err says the connection has ended.
func isClosed(err error) bool { return errors.Is(err, jsonrpc.ErrClosed) }

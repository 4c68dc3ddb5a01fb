package streamable

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
)

// refusingServer returns a real server whose middleware refuses, after
// the server has served it, any initialize whose clientInfo names
// "intruder" (as an authorization policy would), and reports the session
// ID of each such refusal on refused.
func refusingServer(refused chan<- string) *server.Server {
	policy := func(next server.MethodHandler) server.MethodHandler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			res, err := next(ctx, r)
			if r.Method() != mcp.MethodInitialize || err != nil {
				return res, err
			}
			if p, ok := r.DecodedParams().(*mcp.InitializeParams); ok && p.ClientInfo.Name == "intruder" {
				refused <- r.SessionID()
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "this client may not connect")
			}
			return res, err
		}
	}
	return server.New(mcp.Implementation{Name: "refusing", Version: "1"}, &server.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Middleware: []server.Middleware{policy}})
}

// serveRefusing serves refusingServer with opts on loopback.
func serveRefusing(t *testing.T, refused chan<- string, opts *HandlerOptions) (*Handler, string) {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	h := NewHandler(refusingServer(refused), opts)
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		hs.Close()
	})
	return h, hs.URL
}

// wantRefusal checks that an initialize was answered with a JSON-RPC error
// of code and no session: the spec assigns a session ID only on the
// response that carries an InitializeResult.
func wantRefusal(t *testing.T, h *Handler, resp *http.Response, code int64) {
	t.Helper()
	if r := wantResponse(t, resp); r.Error == nil || r.Error.Code != code {
		t.Fatalf("initialize answered %+v, want error %d", r, code)
	}
	if sid := resp.Header.Get(headerSessionID); sid != "" {
		t.Errorf("the refused initialize carries Mcp-Session-Id %q", sid)
	}
	if n := h.sessions.len(); n != 0 {
		t.Errorf("%d sessions live after a refused initialize, want 0", n)
	}
}

// A client whose initializes are refused, by the server (-32602 for
// missing params) or by its policy after the server served them, gets no
// session ID and holds no session: refusals do not use up its
// MaxSessionsPerClient.
func TestRefusedInitializesHoldNoSession(t *testing.T) {
	refused := make(chan string, 8)
	h, url := serveRefusing(t, refused, &HandlerOptions{MaxSessionsPerClient: 2})
	intruder := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"intruder","version":"1"}}}`
	for range 3 {
		wantRefusal(t, h, do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0","id":1,"method":"initialize"}`), jsonrpc.CodeInvalidParams)
		wantRefusal(t, h, do(t, "POST", url, legacyHeaders(""), intruder), jsonrpc.CodeInvalidRequest)
		<-refused
	}
	a := initSession(t, url, mcp.Version20251125)
	b := initSession(t, url, mcp.Version20251125)
	if a == b {
		t.Fatalf("two sessions got the same ID %q", a)
	}
	third := do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	wantError(t, third, http.StatusTooManyRequests, codeTransport)
}

// With a shared session store, an initialize refused after the server
// stored its session leaves that session ended in the store: no instance
// serves it.
func TestARefusedInitializeLeavesNoSessionInTheSharedStore(t *testing.T) {
	store := sessions.NewMemoryStore()
	refused := make(chan string, 1)
	h, url := serveRefusing(t, refused, &HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour})
	wantRefusal(t, h, do(t, "POST", url, legacyHeaders(""),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"intruder","version":"1"}}}`),
		jsonrpc.CodeInvalidRequest)
	sid := <-refused
	switch rec, err := store.Get(context.Background(), sid); {
	case errors.Is(err, sessions.ErrNotFound):
	case err != nil:
		t.Fatalf("reading the refused session from the store: %v", err)
	case !rec.Ended:
		t.Errorf("the refused session %s is live in the shared store: %+v", sid, rec)
	}
	h2 := legacyHeaders(sid)
	wantError(t, do(t, "POST", url, h2, `{"jsonrpc":"2.0","id":2,"method":"ping"}`), http.StatusNotFound, CodeSessionNotFound)
}

package client

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

func TestConnectSpeaksModernWhenDiscoverSucceeds(t *testing.T) {
	s, p := connect(t, &Options{ElicitForm: declineElicit}, nil)
	if got := s.ProtocolVersion(); got != mcp.Version20260728 || !s.IsModern() {
		t.Fatalf("ProtocolVersion = %q (modern %v), want %s", got, s.IsModern(), mcp.Version20260728)
	}
	if s.ServerInfo().Name != "fake" || s.Instructions() != "be kind" || s.ServerCapabilities().Tools == nil {
		t.Errorf("server info %+v, instructions %q, capabilities %+v: not taken from the discover result",
			s.ServerInfo(), s.Instructions(), s.ServerCapabilities())
	}
	if got := p.methods(); !slices.Equal(got, []string{mcp.MethodServerDiscover}) {
		t.Errorf("the server received %v, want only server/discover (no handshake in the modern era)", got)
	}
	m := meta(t, p.requests(mcp.MethodServerDiscover)[0])
	if v, _ := m.ProtocolVersion(); v != mcp.Version20260728 {
		t.Errorf("probe _meta protocolVersion = %q", v)
	}
	caps, err := m.ClientCapabilities()
	if err != nil || !caps.Elicitation.SupportsForm() || caps.Elicitation.SupportsURL() {
		t.Errorf("probe _meta clientCapabilities = %+v (%v), want form elicitation only", caps, err)
	}
	if info, _ := m.ClientInfo(); info.Name != "test-client" {
		t.Errorf("probe _meta clientInfo = %+v", info)
	}
}

func TestConnectFallsBackToInitializeOnAnyNonModernError(t *testing.T) {
	for _, code := range []int64{jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInvalidRequest, -32000} {
		s, p := connect(t, nil, map[string]handlerFunc{
			mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
				return nil, jsonrpc.NewError(code, "not initialized")
			},
		})
		if s.ProtocolVersion() != mcp.LatestLegacyVersion || s.IsModern() {
			t.Fatalf("code %d: ProtocolVersion = %q, want the legacy fallback %s", code, s.ProtocolVersion(), mcp.LatestLegacyVersion)
		}
		if s.ServerInfo().Name != "legacy-fake" || s.Instructions() != "old school" || s.ServerCapabilities().Prompts == nil {
			t.Errorf("code %d: server info, instructions or capabilities not taken from the initialize result", code)
		}
		p.drained(s)
		want := []string{mcp.MethodServerDiscover, mcp.MethodInitialize, mcp.NotificationInitialized}
		if got := p.methods(); !slices.Equal(got, want) {
			t.Errorf("code %d: the server received %v, want %v", code, got, want)
		}
	}
}

func TestConnectFallsBackWhenTheProbeGetsNoAnswer(t *testing.T) {
	release := make(chan struct{})
	s, p := connect(t, &Options{ProbeTimeout: 50 * time.Millisecond}, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
			<-release // a legacy server that leaves requests before initialize unanswered
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "too late")
		},
		mcp.MethodPing: raw(`{}`),
	})
	if s.ProtocolVersion() != mcp.LatestLegacyVersion {
		t.Fatalf("ProtocolVersion = %q, want %s", s.ProtocolVersion(), mcp.LatestLegacyVersion)
	}
	if err := s.Ping(testCtx(t)); err != nil {
		t.Fatalf("Ping after the fallback: %v", err)
	}
	close(release) // the late answer to the probe is dropped harmlessly
	p.drained(s)
	// The unanswered probe is not cancelled: a legacy server must see
	// nothing but initialize before the handshake completes.
	want := []string{mcp.MethodServerDiscover, mcp.MethodInitialize, mcp.NotificationInitialized, mcp.MethodPing}
	if got := p.methods(); !slices.Equal(got, want) {
		t.Errorf("the server received %v, want %v", got, want)
	}
}

func TestConnectRetriesOnceWithAVersionFromTheUnsupportedVersionError(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, mcp.UnsupportedVersionError(mcp.Version20260728, []string{"2099-01-01", mcp.Version20250618, mcp.Version20250326})
		},
	})
	if s.ProtocolVersion() != mcp.Version20250618 {
		t.Fatalf("ProtocolVersion = %q, want %s, the newest listed version the client speaks", s.ProtocolVersion(), mcp.Version20250618)
	}
	var init mcp.InitializeParams
	if err := json.Unmarshal(p.requests(mcp.MethodInitialize)[0].Params, &init); err != nil || init.ProtocolVersion != mcp.Version20250618 {
		t.Errorf("initialize offered %q (%v), want %s", init.ProtocolVersion, err, mcp.Version20250618)
	}
}

func TestConnectFailsWhenNoListedVersionIsShared(t *testing.T) {
	p, stream := newPeer(t, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, mcp.UnsupportedVersionError(mcp.Version20260728, []string{"2099-01-01"})
		},
	})
	_, err := New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(testCtx(t), stream)
	if err == nil || !strings.Contains(err.Error(), "2099-01-01") {
		t.Fatalf("Connect error = %v, want one naming the server's versions", err)
	}
	<-p.conn.Done()
	if got := p.methods(); !slices.Equal(got, []string{mcp.MethodServerDiscover}) {
		t.Errorf("the server received %v; a modern server's version error must not lead to initialize", got)
	}
}

func TestConnectDoesNotFallBackOnOtherModernErrors(t *testing.T) {
	_, stream := newPeer(t, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, mcp.MissingCapabilityError(mcp.ClientCapabilities{Roots: &mcp.RootsCapability{}})
		},
		mcp.MethodInitialize: initializeResult,
	})
	_, err := New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(testCtx(t), stream)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("Connect error = %v, want the server's -32021", err)
	}
}

func TestConnectWithPinnedLegacyVersionSkipsTheProbe(t *testing.T) {
	s, p := connect(t, &Options{ProtocolVersion: mcp.Version20241105}, nil)
	if s.ProtocolVersion() != mcp.Version20241105 {
		t.Fatalf("ProtocolVersion = %q", s.ProtocolVersion())
	}
	p.drained(s)
	if got := p.methods(); !slices.Equal(got, []string{mcp.MethodInitialize, mcp.NotificationInitialized}) {
		t.Errorf("the server received %v, want the handshake only", got)
	}
}

func TestConnectWithPinnedModernVersionFailsOnALegacyServer(t *testing.T) {
	_, stream := newPeer(t, map[string]handlerFunc{mcp.MethodInitialize: initializeResult})
	c := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: mcp.Version20260728})
	_, err := c.Connect(testCtx(t), stream)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("Connect error = %v, want the server's -32601 for server/discover", err)
	}
}

func TestConnectRejectsAVersionTheServerChoseThatTheClientDoesNotSpeak(t *testing.T) {
	_, stream := newPeer(t, map[string]handlerFunc{
		mcp.MethodInitialize: raw(`{"protocolVersion":"2023-01-01","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`),
	})
	c := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: mcp.Version20250326})
	if _, err := c.Connect(testCtx(t), stream); err == nil || !strings.Contains(err.Error(), "2023-01-01") {
		t.Fatalf("Connect error = %v, want one naming the unknown version", err)
	}
}

func TestConnectRejectsBadOptions(t *testing.T) {
	for _, opts := range []*Options{{ProtocolVersion: "2024-01-01"}, {LogLevel: "loud"}} {
		_, stream := newPeer(t, nil)
		if _, err := New(mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(testCtx(t), stream); err == nil {
			t.Errorf("Connect with %+v succeeded", opts)
		}
	}
}

// The initialize request MUST NOT be cancelled by clients: a Connect whose
// context ends during the handshake sends no notifications/cancelled.
func TestInitializeIsNeverCancelled(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	p, stream := newPeer(t, map[string]handlerFunc{
		mcp.MethodInitialize: func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			close(entered)
			select {
			case <-ctx.Done():
				t.Error("the server's initialize handler was cancelled")
			case <-release:
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "too late")
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	c := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: mcp.Version20251125})
	if _, err := c.Connect(ctx, stream); !errors.Is(err, context.Canceled) {
		t.Fatalf("Connect error = %v, want context.Canceled", err)
	}
	close(release)
	<-p.conn.Done()
	if got := p.methods(); !slices.Equal(got, []string{mcp.MethodInitialize}) {
		t.Errorf("the server received %v, want initialize alone (no notifications/cancelled)", got)
	}
}

func TestWaitReportsHowTheSessionEnded(t *testing.T) {
	s, _ := connect(t, nil, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after Close = %v, want nil", err)
	}
	s, p := connect(t, nil, nil)
	p.conn.Close() // the server goes away
	if err := s.Wait(); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Wait after the server left = %v, want an error matching jsonrpc.ErrClosed", err)
	}
}

func TestConnectUsesAVersionFromADiscoverResultWithoutTheNewest(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{mcp.MethodServerDiscover: discoverResult("2099-01-01", mcp.Version20250618)})
	if s.ProtocolVersion() != mcp.Version20250618 {
		t.Fatalf("ProtocolVersion = %q, want %s", s.ProtocolVersion(), mcp.Version20250618)
	}
	if len(p.requests(mcp.MethodInitialize)) != 1 {
		t.Error("the listed legacy version was not set up with initialize")
	}
}

func TestConnectFailsWhenTheConnectionEndsDuringTheProbe(t *testing.T) {
	p, stream := newPeer(t, map[string]handlerFunc{})
	p.handlers[mcp.MethodServerDiscover] = func(context.Context, *jsonrpc.Request) (any, error) {
		p.conn.Close()
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "closing")
	}
	_, err := New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(testCtx(t), stream)
	if !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("Connect error = %v, want one matching jsonrpc.ErrClosed (not a fallback to initialize)", err)
	}
}

// SEP-2575: a client whose first request is refused with -32022 retries with
// a version from data.supported. With a pinned version that the list names
// (the conformance mock refuses any first request), that is one retry.
func TestPinnedModernVersionRetriesOnceWhenTheServerListsIt(t *testing.T) {
	var calls atomic.Int32
	s, p := connect(t, &Options{ProtocolVersion: mcp.Version20260728}, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if calls.Add(1) == 1 {
				return nil, mcp.UnsupportedVersionError(mcp.Version20260728, []string{mcp.Version20260728})
			}
			return discoverResult(mcp.Version20260728)(ctx, req)
		},
	})
	if !s.IsModern() || len(p.requests(mcp.MethodServerDiscover)) != 2 {
		t.Fatalf("modern = %v after %d server/discover requests; want a modern session after exactly 2", s.IsModern(), len(p.requests(mcp.MethodServerDiscover)))
	}
}

func TestPinnedModernVersionRetriesOnlyOnce(t *testing.T) {
	p, stream := newPeer(t, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, mcp.UnsupportedVersionError(mcp.Version20260728, []string{mcp.Version20260728})
		},
	})
	_, err := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: mcp.Version20260728}).Connect(testCtx(t), stream)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeUnsupportedProtocolVersion {
		t.Fatalf("Connect error = %v, want the server's -32022", err)
	}
	<-p.conn.Done()
	if n := len(p.requests(mcp.MethodServerDiscover)); n != 2 {
		t.Errorf("the client sent server/discover %d times, want 2 (one retry)", n)
	}
}

func TestPinnedModernVersionFailsWhenTheServerListsOthers(t *testing.T) {
	p, stream := newPeer(t, map[string]handlerFunc{
		mcp.MethodServerDiscover: func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, mcp.UnsupportedVersionError(mcp.Version20260728, []string{"2099-01-01"})
		},
	})
	_, err := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: mcp.Version20260728}).Connect(testCtx(t), stream)
	if err == nil || !strings.Contains(err.Error(), "2099-01-01") || !strings.Contains(err.Error(), "pins") {
		t.Fatalf("Connect error = %v, want one naming the server's versions and the pin", err)
	}
	<-p.conn.Done()
	if n := len(p.requests(mcp.MethodServerDiscover)); n != 1 {
		t.Errorf("the client sent server/discover %d times, want 1", n)
	}
}

// A server/discover answer that is not a discover result (no
// supportedVersions, or not the right shape) comes from a server that is
// not modern: the client falls back to initialize, as for a legacy error,
// and logs why.
func TestConnectFallsBackToInitializeOnAMalformedDiscoverResult(t *testing.T) {
	for _, answer := range []string{
		`{}`,
		`{"capabilities":{},"_meta":{}}`,
		`{"supportedVersions":[],"capabilities":{}}`,
		`{"supportedVersions":null,"capabilities":{}}`,
		`{"supportedVersions":"2026-07-28","capabilities":{}}`,
		`[]`,
	} {
		var logs syncBuffer
		s, p := connect(t, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))},
			map[string]handlerFunc{mcp.MethodServerDiscover: raw(answer)})
		if s.ProtocolVersion() != mcp.LatestLegacyVersion || s.IsModern() {
			t.Fatalf("discover answered %s: ProtocolVersion = %q, want the legacy fallback %s", answer, s.ProtocolVersion(), mcp.LatestLegacyVersion)
		}
		p.drained(s)
		want := []string{mcp.MethodServerDiscover, mcp.MethodInitialize, mcp.NotificationInitialized}
		if got := p.methods(); !slices.Equal(got, want) {
			t.Errorf("discover answered %s: the server received %v, want %v", answer, got, want)
		}
		if log := logs.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "not a discover result") || !strings.Contains(log, "malformed") {
			t.Errorf("discover answered %s: the client logged %q; want a warning saying why it fell back", answer, log)
		}
	}
}

// With a pinned modern version there is no fallback: a malformed discover
// result fails the connection and says so.
func TestPinnedModernVersionFailsOnAMalformedDiscoverResult(t *testing.T) {
	_, stream := newPeer(t, map[string]handlerFunc{mcp.MethodServerDiscover: raw(`{"capabilities":{}}`)})
	_, err := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: mcp.Version20260728}).Connect(testCtx(t), stream)
	if err == nil || !strings.Contains(err.Error(), "lists no supportedVersions") {
		t.Fatalf("Connect = %v; want an error saying the discover result lists no versions", err)
	}
}

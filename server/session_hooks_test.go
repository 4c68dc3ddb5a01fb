package server_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// lifeEvent is one call of a session hook.
type lifeEvent struct {
	hook  string // start, end, initialized, roots
	info  server.SessionInfo
	roots []string // for roots: what r.ListRoots returned
	err   error
}

// lifeHooks reports every hook call on ch.
func lifeHooks(ch chan<- lifeEvent) server.SessionHooks {
	return server.SessionHooks{
		Start: func(ctx context.Context, info server.SessionInfo) {
			if ctx.Err() != nil {
				info.ID = "(ended context)"
			}
			ch <- lifeEvent{hook: "start", info: info}
		},
		End: func(info server.SessionInfo) { ch <- lifeEvent{hook: "end", info: info} },
		Initialized: func(_ context.Context, r *server.Request) {
			ch <- lifeEvent{hook: "initialized", info: r.Session().Info()}
		},
		RootsListChanged: func(ctx context.Context, r *server.Request) {
			res, err := r.ListRoots(ctx)
			ev := lifeEvent{hook: "roots", info: r.Session().Info(), err: err}
			if err == nil {
				for _, root := range res.Roots {
					ev.roots = append(ev.roots, root.URI)
				}
			}
			ch <- ev
		},
	}
}

func TestSessionHooks_StartInitializedRootsAndEndOverEveryTransport(t *testing.T) {
	forTransportsAndEras(t, []string{mcp.Version20241105, mcp.Version20251125}, func(t *testing.T, tr, v string) {
		ch := make(chan lifeEvent, 16)
		s := server.New(mcp.Implementation{Name: "life", Version: "1"}, &server.Options{Logger: quiet, Sessions: lifeHooks(ch)})
		addEcho(s)
		var rootsAsked atomic.Int32
		cs := dialOver(t, tr, s, v, &client.Options{ListRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			n := rootsAsked.Add(1)
			return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///root" + string(rune('0'+n))}}}, nil
		}})
		var backlog []lifeEvent
		start := awaitFrom(t, ch, &backlog, "the Start hook", func(e lifeEvent) bool { return e.hook == "start" })
		if start.info.ID == "" || start.info.ID == "(ended context)" || start.info.ProtocolVersion != v || start.info.ClientInfo.Name != "servertest" {
			t.Errorf("Start got %+v; want the session's ID, version %s and the client's info", start.info, v)
		}
		if start.info.ClientCapabilities.Roots == nil {
			t.Errorf("Start got client capabilities %+v; want the roots the client declared", start.info.ClientCapabilities)
		}
		id := start.info.ID
		init := awaitFrom(t, ch, &backlog, "the Initialized hook", func(e lifeEvent) bool { return e.hook == "initialized" })
		if init.info.ID != id {
			t.Errorf("Initialized ran for session %q; want %q", init.info.ID, id)
		}
		if !slices.ContainsFunc(slices.Collect(s.Sessions()), func(ss *server.Session) bool { return ss.ID() == id }) {
			t.Errorf("Sessions does not yield the live session %s", id)
		}

		if err := cs.NotifyRootsListChanged(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		roots := awaitFrom(t, ch, &backlog, "the RootsListChanged hook", func(e lifeEvent) bool { return e.hook == "roots" })
		if roots.err != nil || !slices.Equal(roots.roots, []string{"file:///root1"}) || roots.info.ID != id {
			t.Errorf("RootsListChanged read roots %v (error %v) on session %s; want [file:///root1] on %s", roots.roots, roots.err, roots.info.ID, id)
		}

		cs.Close()
		end := awaitFrom(t, ch, &backlog, "the End hook", func(e lifeEvent) bool { return e.hook == "end" })
		if end.info.ID != id || end.info.ProtocolVersion != v {
			t.Errorf("End got %+v; want session %s at %s", end.info, id, v)
		}
		for ss := range s.Sessions() {
			if ss.ID() == id {
				t.Errorf("Sessions still yields session %s after its End hook", id)
			}
		}
		if len(backlog) != 0 {
			t.Errorf("hooks called more than once: %+v", backlog)
		}
	})
}

func TestSessionHooks_StartCarriesThePrincipal(t *testing.T) {
	ch := make(chan lifeEvent, 16)
	s := server.New(mcp.Implementation{Name: "life", Version: "1"}, &server.Options{Logger: quiet, Sessions: lifeHooks(ch)})
	clientEnd, serverEnd := transport.Pipe()
	ss, err := s.Connect(context.Background(), serverEnd, &server.ConnectOptions{Principal: "alice", SessionID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: mcp.Version20251125, Logger: quiet}).Connect(testCtx(t), clientEnd)
	if err != nil {
		t.Fatal(err)
	}
	start := await(t, ch, "the Start hook", func(e lifeEvent) bool { return e.hook == "start" })
	if start.info.Principal != "alice" || start.info.ID != "s-1" {
		t.Errorf("Start got %+v; want principal alice, session s-1", start.info)
	}
	if got := ss.Info(); got.Principal != "alice" || got.ProtocolVersion != mcp.Version20251125 {
		t.Errorf("Session.Info() = %+v; want principal alice at %s", got, mcp.Version20251125)
	}
	ss.Close()
	end := await(t, ch, "the End hook", func(e lifeEvent) bool { return e.hook == "end" })
	if end.info.Principal != "alice" {
		t.Errorf("End got %+v; want principal alice", end.info)
	}
	cs.Close()
}

func TestSessionHooks_ModernRequestsStartNoSession(t *testing.T) {
	for _, tr := range hookTransports {
		t.Run(tr, func(t *testing.T) {
			ch := make(chan lifeEvent, 16)
			s := server.New(mcp.Implementation{Name: "life", Version: "1"}, &server.Options{Logger: quiet, Sessions: lifeHooks(ch)})
			addEcho(s)
			cs := dialOver(t, tr, s, mcp.Version20260728, nil)
			if _, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)}); err != nil {
				t.Fatal(err)
			}
			// Start runs before an initialize is answered, so by now it
			// would have been called.
			select {
			case e := <-ch:
				t.Errorf("a modern client called the %s hook: %+v", e.hook, e.info)
			default:
			}
		})
	}
}

func TestSessionHooks_StartMayCloseTheSessionAndEndFollows(t *testing.T) {
	ch := make(chan lifeEvent, 16)
	var s *server.Server
	hooks := lifeHooks(ch)
	report := hooks.Start
	hooks.Start = func(ctx context.Context, info server.SessionInfo) {
		report(ctx, info)
		for ss := range s.Sessions() {
			if ss.ID() == info.ID {
				ss.Close() // refuse every session
			}
		}
	}
	s = server.New(mcp.Implementation{Name: "life", Version: "1"}, &server.Options{Logger: quiet, Sessions: hooks})
	clientEnd, _ := pipeAs(t, s, "mallory")
	_, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: mcp.Version20251125, Logger: quiet}).Connect(testCtx(t), clientEnd)
	if err == nil {
		t.Error("the client connected to a session its Start hook closed")
	}
	var backlog []lifeEvent
	awaitFrom(t, ch, &backlog, "the Start hook", func(e lifeEvent) bool { return e.hook == "start" })
	end := awaitFrom(t, ch, &backlog, "the End hook", func(e lifeEvent) bool { return e.hook == "end" })
	if end.info.Principal != "mallory" {
		t.Errorf("End got %+v; want mallory's session", end.info)
	}
}

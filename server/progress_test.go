package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// progressServer has a tool that reports progress 0, 50, 100 of 100 and one
// that hands its Request to the test and returns at once.
func progressServer(t *testing.T, escaped chan<- *Request) *Server {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		for _, p := range []float64{0, 50, 100} {
			if err := r.Progress(ctx, p, 100, fmt.Sprintf("at %v", p)); err != nil {
				return "", err
			}
		}
		return "done", nil
	})
	AddTool(s, &mcp.Tool{Name: "escape", Description: "Leaks its request."}, func(_ context.Context, r *Request, _ struct{}) (string, error) {
		escaped <- r
		return "returned", nil
	})
	AddTool(s, &mcp.Tool{Name: "decrease", Description: "Reports progress that goes back."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		if err := r.Progress(ctx, 5, 0, ""); err != nil {
			return "", err
		}
		return "", r.Progress(ctx, 5, 0, "")
	})
	return s
}

func TestProgress_MustEchoTheExactTokenBeforeTheResult(t *testing.T) {
	s := progressServer(t, nil)
	tokens := []string{`"progress-test-1"`, `7`, `-3`, `"café ☕"`, `12345678901234567890`}
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, `{}`, nil)
			for _, tok := range tokens {
				res, err := c.rawCall("tools/call", c.withMeta(`{"name":"progress"}`, `"progressToken":`+tok))
				if err != nil {
					t.Fatalf("token %s: %v", tok, err)
				}
				if !strings.Contains(member(t, res, "content"), "done") {
					t.Fatalf("result %s", res)
				}
				// The client's connection handles messages in order: every
				// progress notification sent before the result is queued now.
				for _, want := range []string{"0", "50", "100"} {
					n := c.nextNote()
					if n.Method != mcp.NotificationProgress {
						t.Fatalf("got %s, want progress", n.Method)
					}
					if got := member(t, n.Params, "progressToken"); got != tok {
						t.Errorf("progress token %s, want exactly %s", got, tok)
					}
					if got := member(t, n.Params, "progress"); got != want {
						t.Errorf("progress %s, want %s", got, want)
					}
					if got := member(t, n.Params, "message"); (got != "") != mcp.SupportsProgressMessage(v) {
						t.Errorf("%s: message %q", v, got)
					}
				}
				c.noNote()
			}
		})
	}
}

func TestProgress_TokenMustBeStringOrInteger(t *testing.T) {
	s := progressServer(t, nil)
	for _, v := range []string{mcp.Version20250618, mcp.Version20260728} {
		c := open(t, s, v, `{}`, nil)
		for _, tok := range []string{`true`, `{"a":1}`, `[1]`, `null`} {
			res, err := c.rawCall("tools/call", c.withMeta(`{"name":"progress"}`, `"progressToken":`+tok))
			e := wantRPCError(t, "tools/call", res, err)
			if e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "progress") {
				t.Errorf("%s: progress token %s: %v", v, tok, e)
			}
		}
		c.noNote()
	}
}

func TestProgress_NoTokenNoNotifications(t *testing.T) {
	c := open(t, progressServer(t, nil), mcp.Version20251125, `{}`, nil)
	c.mustCall("tools/call", `{"name":"progress"}`)
	c.noNote()
}

func TestProgress_ValueMustIncrease(t *testing.T) {
	c := open(t, progressServer(t, nil), mcp.Version20251125, `{}`, nil)
	res, err := c.rawCall("tools/call", `{"name":"decrease","_meta":{"progressToken":1}}`)
	if err != nil {
		t.Fatal(err)
	}
	if member(t, res, "isError") != "true" || !strings.Contains(member(t, res, "content"), "must increase") {
		t.Errorf("a repeated progress value was not refused: %s", res)
	}
	if n := c.nextNote(); member(t, n.Params, "progress") != "5" {
		t.Errorf("first progress %s", n.Params)
	}
	c.noNote()
}

func TestProgress_MustStopAfterCompletion(t *testing.T) {
	escaped := make(chan *Request, 1)
	for _, v := range []string{mcp.Version20250326, mcp.Version20260728} {
		c := open(t, progressServer(t, escaped), v, `{}`, nil)
		res, err := c.rawCall("tools/call", c.withMeta(`{"name":"escape"}`, `"progressToken":"tok"`))
		if err != nil || !strings.Contains(string(res), "returned") {
			t.Fatalf("%s: %s %v", v, res, err)
		}
		r := <-escaped
		if err := r.Progress(context.Background(), 1, 2, "late"); !errors.Is(err, ErrRequestDone) {
			t.Errorf("%s: progress after the result: %v, want ErrRequestDone", v, err)
		}
		if err := r.Log(context.Background(), mcp.LevelEmergency, "", "late"); v == mcp.Version20260728 && err != nil {
			t.Errorf("a log the request did not ask for must be dropped silently: %v", err)
		}
		c.mustCall("tools/call", `{"name":"progress"}`) // no token: no notifications; a marker of time passing
		c.noNote()
	}
}

func TestProgress_MustOnlyReferenceActiveRequestTokens(t *testing.T) {
	// Two calls with different tokens run at once: each one's notifications
	// carry its own token only.
	s := newTestServer(t, nil)
	release := make(chan struct{})
	AddTool(s, &mcp.Tool{Name: "wait", Description: "Waits."}, func(ctx context.Context, r *Request, in echoIn) (string, error) {
		if err := r.Progress(ctx, 1, 0, in.Text); err != nil {
			return "", err
		}
		<-release
		return in.Text, r.Progress(ctx, 2, 0, in.Text)
	})
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	done := make(chan error, 2)
	for _, tok := range []string{`"a"`, `"b"`} {
		go func() {
			_, err := c.rawCall("tools/call", `{"name":"wait","arguments":{"text":`+tok+`},"_meta":{"progressToken":`+tok+`}}`)
			done <- err
		}()
	}
	for range 2 {
		n := c.nextNote()
		if member(t, n.Params, "progressToken") != `"`+member(t, n.Params, "message")[1:2]+`"` {
			t.Errorf("notification %s mixes tokens", n.Params)
		}
	}
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		n := c.nextNote()
		if member(t, n.Params, "progress") != "2" || member(t, n.Params, "progressToken")[1:2] != member(t, n.Params, "message")[1:2] {
			t.Errorf("notification %s", n.Params)
		}
	}
}

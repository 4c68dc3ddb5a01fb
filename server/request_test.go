package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// whoServer has a tool that reports what its Request knows.
func whoServer(t *testing.T) *Server {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "who", Description: "Describes the request."}, func(_ context.Context, r *Request, _ struct{}) (string, error) {
		session := "none"
		if r.Session() != nil {
			session = r.Session().ID()
		}
		return fmt.Sprintf("principal=%q version=%s modern=%v client=%s sampling=%v method=%s session=%s meta=%d",
			r.Principal(), r.ProtocolVersion(), r.IsModern(), r.ClientInfo().Name, r.ClientCapabilities().Sampling != nil,
			r.Method(), session, len(r.Meta())), nil
	})
	return s
}

func TestRequest_WhatAHandlerSees(t *testing.T) {
	s := whoServer(t)
	legacy := open(t, s, mcp.Version20250618, `{"sampling":{}}`, nil)
	want := fmt.Sprintf(`principal=%q version=2025-06-18 modern=false client=test sampling=true method=tools/call session=%s meta=0`,
		legacy.session.ID(), legacy.session.ID())
	if got := toolText(t, legacy.mustCall("tools/call", `{"name":"who"}`)); got != want {
		t.Errorf("legacy:\n got %s\nwant %s", got, want)
	}
	modern := open(t, s, mcp.Version20260728, `{"sampling":{}}`, nil)
	if got := toolText(t, modern.mustCall("tools/call", `{"name":"who"}`)); got != `principal="" version=2026-07-28 modern=true client=test sampling=true method=tools/call session=none meta=3` {
		t.Errorf("modern: %s", got)
	}
	resp := s.ServeRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call",
		Params: stdjson.RawMessage(`{"name":"who",` + modernMeta + `}`)}, transport.RequestInfo{Principal: "alice"}, nil)
	if got := toolText(t, resp.Result); got != `principal="alice" version=2026-07-28 modern=true client= sampling=false method=tools/call session=none meta=2` {
		t.Errorf("ServeRequest: %s", got)
	}

	clientEnd, serverEnd := transport.Pipe()
	ss, err := s.Connect(context.Background(), serverEnd, &ConnectOptions{SessionID: "fixed", Principal: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn := jsonrpc.NewConn(clientEnd, jsonrpc.ConnOptions{})
	defer conn.Close()
	c := &testClient{t: t, conn: conn, session: ss, notes: make(chan *jsonrpc.Request, 8)}
	c.mustCall("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}`)
	if got := toolText(t, c.mustCall("tools/call", `{"name":"who"}`)); got != `principal="bob" version=2025-11-25 modern=false client=b sampling=false method=tools/call session=fixed meta=0` {
		t.Errorf("authenticated legacy: %s", got)
	}
}

// toolText returns the text of a tool result's first content block.
func toolText(t *testing.T, res stdjson.RawMessage) string {
	t.Helper()
	var r mcp.CallToolResult
	decode(t, res, &r)
	if len(r.Content) == 0 {
		t.Fatalf("no content in %s", res)
	}
	return r.Content[0].(*mcp.TextContent).Text
}

func TestRun_EndsWhenTheClientCloses(t *testing.T) {
	s := fullServer(t, nil)
	clientEnd, serverEnd := transport.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), serverEnd) }()
	conn := jsonrpc.NewConn(clientEnd, jsonrpc.ConnOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := conn.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := <-done; err != nil {
		t.Errorf("Run after the client closed: %v", err)
	}
}

func TestRun_EndsWithItsContext(t *testing.T) {
	s := fullServer(t, nil)
	clientEnd, serverEnd := transport.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, serverEnd) }()
	conn := jsonrpc.NewConn(clientEnd, jsonrpc.ConnOptions{})
	defer conn.Close()
	callCtx, callCancel := context.WithTimeout(context.Background(), waitFor)
	defer callCancel()
	if err := conn.Call(callCtx, "ping", nil, nil); err != nil { // the session is up
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run after its context ended: %v", err)
	}
	select {
	case <-conn.Done(): // the server closed its end
	case <-callCtx.Done():
		t.Fatal("the server's end is still open")
	}
	if !errors.Is(conn.Err(), io.EOF) {
		t.Errorf("the client's connection ended with %v, want EOF", conn.Err())
	}
	if _, err := s.Connect(ctx, serverEnd, nil); err == nil {
		t.Errorf("Connect with an ended context succeeded")
	}
}

func TestServeRequest_NothingRelatedFollowsThePanicAnswer(t *testing.T) {
	s := newTestServer(t, &Options{Logger: quietLogger})
	escaped := make(chan *Request, 1)
	AddTool(s, &mcp.Tool{Name: "boom", Description: "Panics."}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		escaped <- r
		panic("boom")
	})
	var mu sync.Mutex
	var sent []string
	notify := func(_ context.Context, msg *jsonrpc.Request) error {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, msg.Method)
		return nil
	}
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"progressToken":"tok","io.modelcontextprotocol/logLevel":"debug"},"name":"boom"}`
	resp := s.ServeRequest(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: []byte(params)},
		transport.RequestInfo{}, notify)
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a panicking handler answered %s %v; want -32603", resp.Result, resp.Error)
	}
	r := <-escaped
	if err := r.Progress(context.Background(), 1, 0, "after the answer"); !errors.Is(err, ErrRequestDone) {
		t.Errorf("progress after the -32603 answer: %v, want ErrRequestDone", err)
	}
	if err := r.Log(context.Background(), mcp.LevelError, "", "after the answer"); !errors.Is(err, ErrRequestDone) {
		t.Errorf("log after the -32603 answer: %v, want ErrRequestDone", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sent) != 0 {
		t.Errorf("notifications sent after the answer: %v", sent)
	}
}

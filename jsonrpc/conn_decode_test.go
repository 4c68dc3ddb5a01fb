package jsonrpc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestUndecodableMessagesAreAnsweredAndTheConnectionLives(t *testing.T) {
	_, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: newBlocker()})
	tests := []struct{ line, want string }{
		{`this is not json`, `response id=null error=-32700 "invalid JSON at byte 1: invalid character 'h' in literal true (expecting 'r')" data=`},
		{`<html>`, `response id=null error=-32700 "invalid JSON at byte 0: invalid character '<' at start of value" data=`},
		{`{"jsonrpc":"2.0","id":1,"method":`, `response id=null error=-32700 "invalid JSON: the input ends before the JSON value is complete" data=`},
		{`{"jsonrpc":"1.0","id":5,"method":"x"}`, `response id=5 error=-32600 "member \"jsonrpc\" must be \"2.0\"" data=`},
		{`{"jsonrpc":"2.0","id":"k","method":"x","params":{"a":1,"a":2}}`, `response id="k" error=-32600 "duplicate member \"a\" in /params" data=`},
		{`[{"jsonrpc":"2.0","id":1}]`, `response id=null error=-32600 "batches are not supported by the negotiated protocol version" data=`},
		{`[1,{"jsonrpc":"2.0","method"]`, `response id=null error=-32700 "invalid JSON at byte 28: invalid character ']' after object name (expecting ':')" data=`},
	}
	for _, tt := range tests {
		p.sendLine(tt.line)
		if got := describe(p.recvResponse()); got != tt.want {
			t.Errorf("line %s:\n got %s\nwant %s", tt.line, got, tt.want)
		}
	}
	p.sendLine(`{"jsonrpc":"2.0","id":9,"method":"still-alive"}`)
	if got := describe(p.recvResponse()); got != `response id=9 result="fast"` {
		t.Errorf("after the errors: %s", got)
	}
}

// A malformed response is not answered (its id is one of our own calls); it
// fails the call it names.
func TestInvalidResponseFailsItsCallWithoutAnAnswer(t *testing.T) {
	c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: newBlocker()})
	done := make(chan error, 1)
	go func() { done <- c.Call(timeoutCtx(t), "sampling/createMessage", nil, nil) }()
	req := p.recv().(*jsonrpc.Request)
	p.sendLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":1,"message":"both"}}`, req.ID.Raw()))
	err := receive(t, done, "the call")
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), `both "result" and "error"`) {
		t.Fatalf("Call = %v; want the invalid response reported", err)
	}
	p.sendLine(`{"jsonrpc":"2.0","id":1,"method":"next"}`)
	if resp := p.recvResponse(); resp.ID.Raw() != "1" {
		t.Fatalf("got %s; the invalid response must not be answered", describe(resp))
	}
}

// A response with a duplicate member name before its "id" and "result" is
// still a response: it fails the call it names and is not answered.
func TestResponseWithADuplicateNameBeforeItsIDFailsItsCall(t *testing.T) {
	c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: newBlocker()})
	done := make(chan error, 1)
	go func() { done <- c.Call(timeoutCtx(t), "sampling/createMessage", nil, nil) }()
	req := p.recv().(*jsonrpc.Request)
	p.sendLine(fmt.Sprintf(`{"jsonrpc":"2.0","jsonrpc":"2.0","id":%s,"result":{}}`, req.ID.Raw()))
	err := receive(t, done, "the call")
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), `duplicate member "jsonrpc"`) {
		t.Fatalf("Call = %v; want the invalid response reported", err)
	}
	p.sendLine(`{"jsonrpc":"2.0","id":1,"method":"next"}`)
	if resp := p.recvResponse(); resp.ID.Raw() != "1" {
		t.Fatalf("got %s; the invalid response must not be answered", describe(resp))
	}
}

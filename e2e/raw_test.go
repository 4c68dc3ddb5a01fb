package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/websocket"
)

// rawPeer speaks to a fixture server byte by byte over newline-delimited
// JSON, so tests can send what no well-behaved client would.
type rawPeer struct {
	t     *testing.T
	w     io.Writer
	lines chan []byte // lines the server wrote; closed at its EOF
}

// dialRaw starts a fixture server that reads newline-delimited JSON: in
// process over OS-free pipes ("pipe"), or as a subprocess ("stdio"); or one
// that reads a text frame per message ("ws"), each line sent as a frame.
func dialRaw(t *testing.T, kind string) *rawPeer {
	t.Helper()
	var w io.WriteCloser
	var r io.Reader
	switch kind {
	case "pipe":
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ss, err := newFixture().srv.Connect(context.Background(), transport.NewStdio(inR, outW), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			inW.Close()
			ss.Close()
			outW.Close()
		})
		w, r = inW, outR
	case "stdio":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), stdioServerEnv+"=1", "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
		stderr := &lockedBuffer{}
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
		t.Cleanup(func() {
			in.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("the stdio server exited with %v; stderr:\n%s", err, stderr)
			}
		})
		w, r = in, out
	case "ws":
		return dialRawWebSocket(t)
	default:
		t.Fatalf("unknown transport %q", kind)
	}
	p := &rawPeer{t: t, w: w, lines: make(chan []byte, 16)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	return p
}

// send writes one line.
func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("writing to the server: %v", err)
	}
}

// recv reads the next message the server wrote.
func (p *rawPeer) recv() jsonrpc.Message {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			p.t.Fatalf("the server wrote an invalid message %s: %v", line, err)
		}
		return msg
	case <-time.After(testTimeout):
		p.t.Fatal("timed out waiting for the server")
		return nil
	}
}

// response reads until the next response, skipping notifications.
func (p *rawPeer) response() *jsonrpc.Response {
	p.t.Helper()
	for {
		switch m := p.recv().(type) {
		case *jsonrpc.Response:
			return m
		case *jsonrpc.Request:
			if !m.IsNotification() {
				p.t.Fatalf("the server sent a request: %s", m.Method)
			}
		case jsonrpc.Batch:
			p.t.Fatalf("the server sent a batch where a single response was due")
		}
	}
}

// meta returns a params member for version v: the modern _meta, or none.
func meta(v string) string {
	if !mcp.IsModern(v) {
		return `"_meta":{}`
	}
	return fmt.Sprintf(`"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, v, mcp.MetaClientCapabilities)
}

// open prepares a session at version v: the legacy handshake, or nothing
// for a modern server, which needs none.
func (p *rawPeer) open(v string) {
	p.t.Helper()
	if mcp.IsModern(v) {
		return
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, v))
	if r := p.response(); r.Error != nil || r.ID != jsonrpc.StringID("init") {
		p.t.Fatalf("initialize: %+v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// alive checks that the server still answers a well-formed request.
func (p *rawPeer) alive(v string) {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"alive","method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22},%s}}`, meta(v)))
	r := p.response()
	if r.ID != jsonrpc.StringID("alive") || r.Error != nil || !strings.Contains(string(r.Result), `{\"sum\":42}`) {
		p.t.Fatalf("the server no longer answers correctly: %+v %s", r, r.Result)
	}
}

// forEachRaw runs fn for every transport and version in versions, with a
// raw peer whose session is open.
func forEachRaw(t *testing.T, versions []string, fn func(t *testing.T, p *rawPeer, v string)) {
	t.Helper()
	forEach(t, versions, func(t *testing.T, e env) {
		p := dialRaw(t, e.transport)
		p.open(e.version)
		fn(t, p, e.version)
	})
}

// dialRawWebSocket connects a raw peer to the fixture's WebSocket
// endpoint: each line it sends goes as one text frame, as it is.
func dialRawWebSocket(t *testing.T) *rawPeer {
	conn, _, err := ws.Dial(ctxFor(t), serveHTTP(t)+"/mcp", &ws.DialOptions{Subprotocols: []string{websocket.Subprotocol}})
	if err != nil {
		t.Fatalf("dialing the WebSocket endpoint: %v", err)
	}
	conn.SetReadLimit(-1)
	t.Cleanup(func() { conn.CloseNow() })
	p := &rawPeer{t: t, w: frameWriter{conn}, lines: make(chan []byte, 16)}
	go func() {
		defer close(p.lines)
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			p.lines <- data
		}
	}()
	return p
}

// frameWriter sends each line written to it as one text frame, without
// its newline.
type frameWriter struct{ conn *ws.Conn }

func (f frameWriter) Write(b []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return len(b), f.conn.Write(ctx, ws.MessageText, bytes.TrimSuffix(b, []byte("\n")))
}

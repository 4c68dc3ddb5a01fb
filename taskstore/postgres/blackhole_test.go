package postgres_test

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// blackhole is a TCP proxy to the test database whose connections can be
// cut without a word: after cut, what the connections open until then
// carry is dropped and they stay open, as when a failover or a dropped
// route leaves no one at the other end. Connections made later go through.
type blackhole struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	conns []*blackholeConn
}

// blackholeConn is one proxied connection.
type blackholeConn struct {
	client, server net.Conn
	mu             sync.Mutex
	cut            bool
}

// newBlackhole starts a proxy to the test database, stopped when the test
// ends, and returns it with a connection string through it.
func newBlackhole(t *testing.T) (*blackhole, string) {
	t.Helper()
	u, err := url.Parse(connString())
	if err != nil || u.Host == "" {
		t.Fatalf("the proxy needs the database as a URL: set WEFT_POSTGRES_URL to postgres://…, not %q", connString())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blackhole{ln: ln, upstream: u.Host}
	go p.serve()
	t.Cleanup(p.close)
	u.Host = ln.Addr().String()
	return p, u.String()
}

// serve proxies every connection accepted until the listener closes.
func (p *blackhole) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.upstream)
		if err != nil {
			client.Close()
			continue
		}
		c := &blackholeConn{client: client, server: server}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		go c.pipe(server, client)
		go c.pipe(client, server)
	}
}

// pipe copies from src to dst until either closes, dropping what it reads
// once the connection is cut.
func (c *blackholeConn) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		c.mu.Lock()
		cut := c.cut
		c.mu.Unlock()
		if n > 0 && !cut {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			return
		}
	}
}

// cut drops, from now on, everything sent on the connections open now.
func (p *blackhole) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.mu.Lock()
		c.cut = true
		c.mu.Unlock()
	}
}

// close stops the proxy and closes every connection.
func (p *blackhole) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.client.Close()
		c.server.Close()
	}
}

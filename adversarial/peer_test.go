package adversarial

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// peer sends raw messages to a server and reads the messages it sends back
// on one stream: the stdio transport's output, or an HTTP+SSE session's
// event stream.
type peer struct {
	t *testing.T
	v string
	// post sends one message and returns the HTTP status it got (0 on
	// stdio).
	post   func(t *testing.T, body io.Reader) int
	lines  chan []byte // messages the server wrote; closed at its end
	seq    int
	parked map[string]*jsonrpc.Response // responses read while looking for another
}

// newPeer returns a peer at version v sending with post; the caller feeds
// lines.
func newPeer(t *testing.T, v string, post func(t *testing.T, body io.Reader) int) *peer {
	return &peer{t: t, v: v, post: post, lines: make(chan []byte, 16), parked: map[string]*jsonrpc.Response{}}
}

// send sends one message and returns the HTTP status it got (0 on stdio).
func (p *peer) send(body io.Reader) int {
	p.t.Helper()
	return p.post(p.t, body)
}

// initialize performs the legacy handshake at the peer's version.
func (p *peer) initialize() {
	p.t.Helper()
	p.send(strings.NewReader(initializeRequest(p.v)))
	if r := p.await(`"init"`); r.Error != nil {
		p.t.Fatalf("initialize: %+v", r.Error)
	}
	p.send(strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// initializeRequest is an initialize request at version v with id "init".
func initializeRequest(v string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"adversary","version":"1"}}}`, v)
}

// next returns the next message the server wrote.
func (p *peer) next(waitingFor string) []byte {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the server closed its output while the test waited for %s", waitingFor)
		}
		return line
	case <-time.After(waitLimit):
		p.t.Fatalf("no answer from the server in %v while waiting for %s", waitLimit, waitingFor)
		return nil
	}
}

// await returns the response with id, parking the bystander's response if
// it comes first; anything else fails the test.
func (p *peer) await(id string) *jsonrpc.Response {
	p.t.Helper()
	for {
		if r, ok := p.parked[id]; ok {
			delete(p.parked, id)
			return r
		}
		var r reply
		r.add(p.t, p.next("the response to "+id))
		if len(r.responses) != 1 || r.batch {
			p.t.Fatalf("got %d responses while waiting for %s", len(r.responses), id)
		}
		p.parked[r.responses[0].ID.Raw()] = r.responses[0]
	}
}

// attack sends a case's body (returning the HTTP status it got), reads the answers it expects (answers of
// them), then sends a valid request: everything the server answers before
// answering that one is the case's reply, and its answer proves the server
// still serves this connection.
func (p *peer) attack(body io.Reader, answers int) (*reply, int) {
	p.t.Helper()
	status := p.send(body)
	var r reply
	for len(r.responses) < answers {
		p.collect(&r, p.next(fmt.Sprintf("%d answers (got %d)", answers, len(r.responses))), "")
	}
	p.seq++
	alive := fmt.Sprintf(`"alive-%d"`, p.seq)
	p.send(strings.NewReader(toolCall(p.v, alive, "add", `{"a":20,"b":22}`)))
	for !p.collect(&r, p.next("the response to "+alive), alive) {
	}
	return &r, status
}

// collect adds what one line of the server's output answers to r, parking
// the bystander's answer; it reports whether the line was the response
// with id alive (checked to be the sum 42).
func (p *peer) collect(r *reply, line []byte, alive string) bool {
	p.t.Helper()
	var one reply
	one.add(p.t, line)
	if !one.batch && len(one.responses) == 1 {
		resp := one.responses[0]
		switch resp.ID.Raw() {
		case alive:
			wantSum(p.t, resp, 42)
			return true
		case `"bystander"`:
			p.parked[resp.ID.Raw()] = resp
			return false
		}
	}
	r.batch = r.batch || one.batch
	r.responses = append(r.responses, one.responses...)
	return false
}

// refusedBeforeInitialize sends a tools/call on a legacy connection that
// has not been initialized: it gets -32602 saying to initialize first, and
// the handshake and a request work afterwards.
func refusedBeforeInitialize(t *testing.T, p *peer) {
	t.Helper()
	p.send(strings.NewReader(toolCall(p.v, "1", "add", `{"a":1,"b":2}`)))
	r := p.await("1")
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "initialize") {
		t.Fatalf("a request before initialize got %+v %s, want -32602 saying to initialize first", r.Error, r.Result)
	}
	p.initialize()
	if r, _ := p.attack(strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/nothing"}`), 0); len(r.responses) != 0 {
		t.Fatalf("a notification got %d answers", len(r.responses))
	}
}

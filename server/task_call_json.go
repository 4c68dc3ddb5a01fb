package server

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/mcp"
)

// recordedPeer is what a task's recorded call holds of the client, encoded:
// the "capabilities" and "client" members' values. A legacy session
// encodes its own once, on its first task (Session.recordedPeer); a modern
// request's are the bytes its _meta carried, which decode to the same
// values (setModern decoded them from there).
type recordedPeer struct {
	caps, client jsontext.Value // client nil: no "client" member
}

// encodePeer encodes what a client declared, as json.Marshal encodes
// taskCall's members, but for an empty client info, which it writes where
// the tag omits it: either decodes as the same empty value.
func encodePeer(caps mcp.ClientCapabilities, client mcp.Implementation) (*recordedPeer, error) {
	c, err := json.Marshal(&caps)
	if err != nil {
		return nil, err
	}
	i, err := json.Marshal(&client)
	if err != nil {
		return nil, err
	}
	return &recordedPeer{caps: c, client: i}, nil
}

// modernPeer is the recorded peer of a modern request: the raw values of
// its _meta.
func modernPeer(m mcp.Meta) *recordedPeer {
	p := &recordedPeer{caps: jsontext.Value(m[mcp.MetaClientCapabilities])}
	if raw, ok := m[mcp.MetaClientInfo]; ok {
		p.client = jsontext.Value(raw)
	}
	return p
}

// recordedPeer returns the session's client as a task's recorded call
// holds it, encoded on the session's first task: the capabilities and
// client info never change after initialize.
func (ss *Session) recordedPeer() (*recordedPeer, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	u := ss.useLocked()
	if u.peer == nil {
		p, err := encodePeer(ss.caps, ss.client)
		if err != nil {
			return nil, err
		}
		u.peer = p
	}
	return u.peer, nil
}

// encode returns the call as the task's params: the members json.Marshal
// would write, written by hand for the calls most tasks make (no answers,
// adoption or middleware meta), with the client's members from peer when
// it is known. Reflection over taskCall and the client's capabilities took
// 1.3 µs and 4 allocations a task, about a tenth of an extension task's
// life over stdio at 1 in flight; by hand, 0.15 µs and 1 allocation
// (BenchmarkEncodeTaskCall). Params are the request's bytes, which the
// JSON-RPC decoder has validated.
func (c *taskCall) encode(peer *recordedPeer) ([]byte, error) {
	if len(c.Answers) > 0 || c.Adopt != "" || len(c.Meta) > 0 {
		return json.Marshal(c)
	}
	if peer == nil {
		var err error
		if peer, err = encodePeer(c.Capabilities, c.Client); err != nil {
			return nil, err
		}
	}
	id := c.RequestID.Raw()
	if id == "" {
		id = "null"
	}
	b := make([]byte, 0, 80+len(c.Version)+len(id)+len(c.Params)+len(peer.caps)+len(peer.client)+len(c.Session))
	b = append(b, `{"version":`...)
	b, err := jsontext.AppendQuote(b, c.Version)
	if err != nil {
		return nil, fmt.Errorf("the protocol version: %w", err)
	}
	b = append(b, `,"requestId":`...)
	b = append(b, id...)
	b = append(b, `,"params":`...)
	b = append(b, c.Params...)
	b = append(b, `,"capabilities":`...)
	b = append(b, peer.caps...)
	if peer.client != nil {
		b = append(b, `,"client":`...)
		b = append(b, peer.client...)
	}
	if c.Session != "" {
		b = append(b, `,"session":`...)
		if b, err = jsontext.AppendQuote(b, c.Session); err != nil {
			return nil, fmt.Errorf("the session ID: %w", err)
		}
	}
	return append(b, '}'), nil
}

// recordedPeer returns r's client as its task's recorded call holds it,
// when it is known encoded (nil: encode r's).
func (r *Request) recordedPeer() (*recordedPeer, error) {
	switch {
	case r.modern && r.meta.Has(mcp.MetaClientCapabilities):
		return modernPeer(r.meta), nil
	case !r.modern && r.session != nil:
		return r.session.recordedPeer()
	}
	return nil, nil
}

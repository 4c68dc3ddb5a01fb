package streamable

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
)

// This file routes the messages of a shared legacy session between the
// Handlers serving it (HandlerOptions.Messages and Bus). A server-to-client
// message that no stream of this Handler carries goes to the session's
// ToClient box in the shared store, and a bus signal wakes whichever
// Handler holds the client's GET stream (route_get.go). What the client
// POSTs here for another Handler (an answer to its request, a cancel of a
// request it runs) goes to the ToServer box, which every Handler serving
// the session reads, each taking its own.
//
// A server-to-client request's ID names the Handler that sent it
// ("<instance>.<n>" for the server's n), so that an answer POSTed anywhere
// finds its way back, and so that the requests of two instances never
// share an ID on the client.

// messageKind is the kind of the bus signals that say a box has new
// messages.
const messageKind tasks.SignalKind = "session-message"

// readerLease is how long a Handler's record that it holds a session's GET
// stream lasts unless renewed (every readerLease/3 while the stream is
// open): a Handler that dies leaves it for at most this long, during which
// requests to the client are kept for its reconnection.
const readerLease = time.Minute

// readRetry is how long a Handler waits before reading a box again after
// a failed read.
const readRetry = time.Second

// router routes a Handler's shared sessions' messages.
type router struct {
	h        *Handler
	log      sessions.MessageLog
	bus      tasks.Bus
	instance string // this Handler's name in wire IDs and reader records

	mu        sync.Mutex
	listeners map[*session]tasks.Subscription // ToServer subscriptions of sessions held here
	attached  map[*session]time.Time          // when each session's GET stream was last seen attached here (see heldLately)
}

// newRouter returns the router of h, or nil when h does not route.
func newRouter(h *Handler) *router {
	o := &h.opts
	if o.Sessions == nil || o.Messages == nil || o.Bus == nil {
		return nil
	}
	return &router{h: h, log: o.Messages, bus: o.Bus, instance: rand.Text()[:12],
		listeners: make(map[*session]tasks.Subscription), attached: make(map[*session]time.Time)}
}

// boxSignal is the bus signal ID of a session's box.
func boxSignal(session string, box sessions.Box) string {
	if box == sessions.ToClient {
		return "weft-session/" + session + "/client"
	}
	return "weft-session/" + session + "/server"
}

// post appends a message to a session's box and wakes its readers.
func (r *router) post(ctx context.Context, session string, box sessions.Box, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("streamable: encoding a message for another instance: %w", err)
	}
	if _, err := r.log.Append(ctx, session, box, data); err != nil {
		return fmt.Errorf("streamable: storing a message of session %s for another instance: %w", session, err)
	}
	if err := r.bus.Publish(ctx, tasks.Signal{TaskID: boxSignal(session, box), Kind: messageKind}); err != nil {
		// Stored: the reader finds it with its next signal.
		r.h.opts.Logger.Warn("streamable: could not signal a routed message; it waits for the next signal", "session", session, "error", err)
	}
	return nil
}

// wireID returns the ID a server-to-client request of this Handler carries
// on the wire: its own, named after the Handler. IDs the server's
// connection makes are integers; any other is kept (its answer then comes
// back only to the Handler it reaches).
func (r *router) wireID(id jsonrpc.ID) jsonrpc.ID {
	raw := id.Raw()
	if _, err := strconv.ParseInt(raw, 10, 64); err != nil {
		return id
	}
	return jsonrpc.StringID(r.instance + "." + raw)
}

// localID reverses wireID for an ID this Handler made.
func (r *router) localID(id jsonrpc.ID) (jsonrpc.ID, bool) {
	rest, ok := strings.CutPrefix(id.Raw(), `"`+r.instance+".")
	if !ok {
		return jsonrpc.ID{}, false
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(rest, `"`), 10, 64)
	if err != nil || !strings.HasSuffix(rest, `"`) {
		return jsonrpc.ID{}, false
	}
	return jsonrpc.Int64ID(n), true
}

// outbound is how a shared session sends a server message when the
// Handler routes: a response as any session does; a request or
// notification sent while handling a request whose stream is open here on
// that stream; anything else to the ToClient box, for the GET stream
// wherever it is. A request when no Handler holds a GET stream fails with
// ErrNoStream, as without routing.
func (s sharedSession) outbound(ctx context.Context, r *router, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return s.session.Write(ctx, msg)
	}
	req = r.outboundRequest(req)
	if id, ok := jsonrpc.InboundID(ctx); ok {
		if st := s.pendingStream(id); st != nil {
			if err := st.deliver(req, false); !errors.Is(err, errStreamEnded) {
				return err
			}
		}
	}
	if !req.IsNotification() {
		open, err := r.log.HasReader(ctx, s.id, s.h.sessions.now())
		if err != nil {
			return fmt.Errorf("streamable: asking the session store whether the client of session %s has a GET stream: %w", s.id, err)
		}
		if !open {
			return fmt.Errorf("%w: the client of session %s has no GET stream open on any instance to receive %s", ErrNoStream, s.id, req.Method)
		}
	}
	return r.post(ctx, s.id, sessions.ToClient, req)
}

// outboundRequest returns req as the client sees it: a request with its
// wire ID, and a notifications/cancelled naming one with the wire ID.
func (r *router) outboundRequest(req *jsonrpc.Request) *jsonrpc.Request {
	if !req.IsNotification() {
		return &jsonrpc.Request{ID: r.wireID(req.ID), Method: req.Method, Params: req.Params}
	}
	if req.Method != methodCancelled {
		return req
	}
	id, ok := cancelledID(req.Params)
	if !ok {
		return req
	}
	wire := r.wireID(id)
	if wire == id {
		return req
	}
	params, err := replaceRequestID(req.Params, wire)
	if err != nil {
		return req
	}
	return &jsonrpc.Request{Method: req.Method, Params: params}
}

// inbound sorts what a client POSTed to a routed session: the answers to
// this Handler's requests come back with their own IDs, the answers to
// other Handlers' go to the ToServer box (a malformed one as the error
// that fails the call), and so does a cancel of a request that does not
// run here. It returns what this Handler's server takes.
func (r *router) inbound(ctx context.Context, s *session, msgs []jsonrpc.Message) ([]jsonrpc.Message, error) {
	if !slices.ContainsFunc(msgs, routable) {
		return msgs, nil // the common case, a request: no copy
	}
	out := make([]jsonrpc.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m := m.(type) {
		case *jsonrpc.Response:
			if id, ok := r.localID(m.ID); ok {
				out = append(out, &jsonrpc.Response{ID: id, Result: m.Result, Error: m.Error})
				continue
			}
			if err := r.post(ctx, s.id, sessions.ToServer, m); err != nil {
				return nil, err
			}
			continue
		case *jsonrpc.DecodeError:
			// A malformed answer fails the call it names: here, as the
			// connection fails any; elsewhere, as the error it is.
			if id, ok := r.localID(m.ID); ok {
				out = append(out, &jsonrpc.DecodeError{ID: id, IsResponse: true, Err: m.Err})
				continue
			}
			if err := r.post(ctx, s.id, sessions.ToServer, &jsonrpc.Response{ID: m.ID, Error: m.Err}); err != nil {
				return nil, err
			}
			continue
		case *jsonrpc.Request:
			if m.IsNotification() && m.Method == methodCancelled {
				if id, ok := cancelledID(m.Params); ok && s.pendingStream(id) == nil {
					if err := r.post(ctx, s.id, sessions.ToServer, m); err != nil {
						return nil, err
					}
				}
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// routable reports whether a POSTed message may be for another Handler:
// a response (well-formed or not), or a notifications/cancelled.
func routable(m jsonrpc.Message) bool {
	switch m := m.(type) {
	case *jsonrpc.Response:
		return true
	case *jsonrpc.DecodeError:
		return m.IsResponse && m.ID.IsValid() && !m.ID.IsNull()
	case *jsonrpc.Request:
		return m.IsNotification() && m.Method == methodCancelled
	}
	return false
}

// listen starts taking the session's ToServer messages numbered above
// after, until the session ends here.
func (r *router) listen(s *session, after uint64) {
	sub, err := r.bus.Subscribe(r.h.ctx, boxSignal(s.id, sessions.ToServer))
	if err != nil {
		r.h.opts.Logger.Warn("streamable: could not follow a session's messages from other instances; answers sent through them will not reach this one",
			"session", s.id, "error", err)
		return
	}
	r.mu.Lock()
	r.listeners[s] = sub
	r.mu.Unlock()
	s.mu.Lock()
	ended := s.ended != nil
	s.mu.Unlock()
	if ended {
		r.stop(s)
		return
	}
	go r.takeServerMessages(s, sub, after)
}

// stop ends the session's ToServer subscription, if any, and forgets its
// GET stream.
func (r *router) stop(s *session) {
	r.mu.Lock()
	sub := r.listeners[s]
	delete(r.listeners, s)
	delete(r.attached, s)
	r.mu.Unlock()
	if sub != nil {
		sub.Close()
	}
}

// takeServerMessages reads the session's ToServer box on each signal and
// passes this Handler's messages on to its server. A failed read is
// retried after readRetry, as no signal may come to prompt it.
func (r *router) takeServerMessages(s *session, sub tasks.Subscription, after uint64) {
	retry := time.NewTimer(readRetry)
	retry.Stop()
	defer retry.Stop()
	for {
		select {
		case sig, ok := <-sub.Signals():
			if !ok {
				return
			}
			if sig.Kind == endedKind {
				r.endedElsewhere(s) // stops sub when it ends the session
				continue
			}
		case <-retry.C:
		}
		ctx, cancel := context.WithTimeout(r.h.ctx, storeTimeout)
		msgs, err := r.log.Read(ctx, s.id, sessions.ToServer, after)
		if errors.Is(err, sessions.ErrTrimmed) {
			r.h.opts.Logger.Warn("streamable: messages from other instances were dropped before this one read them", "session", s.id)
			after, err = r.log.Last(ctx, s.id, sessions.ToServer)
		}
		cancel()
		if err != nil {
			if r.h.ctx.Err() == nil {
				r.h.opts.Logger.Warn("streamable: could not read a session's messages from other instances; retrying", "session", s.id, "error", err)
				retry.Reset(readRetry)
			}
			continue
		}
		for _, m := range msgs {
			after = m.Seq
			if mine := r.takeServerMessage(s, m.Data); mine != nil {
				s.push([]jsonrpc.Message{mine})
			}
		}
	}
}

// takeServerMessage returns the message of the ToServer box to pass on to
// this Handler's server, or nil when it is another's.
func (r *router) takeServerMessage(s *session, data []byte) jsonrpc.Message {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		r.h.opts.Logger.Warn("streamable: ignoring an unreadable message from another instance", "session", s.id, "error", err)
		return nil
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if id, ok := r.localID(m.ID); ok {
			return &jsonrpc.Response{ID: id, Result: m.Result, Error: m.Error}
		}
	case *jsonrpc.Request:
		if id, ok := cancelledID(m.Params); ok && m.Method == methodCancelled && s.pendingStream(id) != nil {
			s.cancelled(id)
			return m
		}
	}
	return nil
}

// methodCancelled is the notification that cancels a request.
const methodCancelled = "notifications/cancelled"

// replaceRequestID returns the params of a notifications/cancelled with
// requestId set to id.
func replaceRequestID(params []byte, id jsonrpc.ID) ([]byte, error) {
	var p map[string]jsontext.Value
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	p["requestId"] = jsontext.Value(id.Raw())
	return json.Marshal(p, json.Deterministic(true))
}

package streamable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
)

// ErrSessionEnded is the error session streams' Read returns once the
// session was deleted by the client, expired or was ended by the server:
// the server must stop serving it at once.
var ErrSessionEnded = errors.New("streamable: the session has ended")

// ErrNoStream is the error of a server-to-client request sent outside any
// request's handling to a legacy session whose client has no GET stream
// open: nothing could carry it, so no answer could come.
var ErrNoStream = errors.New("streamable: no stream to the client")

// session is one legacy session. It is the jsonrpc.Stream the server's
// connection takes the session's messages from and writes its messages to;
// the HTTP side passes on what clients POST and attaches response streams.
// It is a jsonrpc.PushStream: a connection that takes its Receiver is handed
// each message on the POST's own goroutine, so an idle session holds no
// goroutine; one that reads it instead (Read) gets them through a queue.
//
// An idle session holds little: its fields and its ID. Queues and tables
// are allocated while in use and released when empty.
type session struct {
	h          *Handler
	id         string
	principal  string       // who initialized the session (auth.PrincipalFrom); only they reach it
	client     string       // the client its per-client limit counts it against (sse.ClientKey); "" if taken over from another instance
	lastActive atomic.Int64 // unix nanoseconds of the last HTTP activity
	// stored is the session's state in the shared store (HandlerOptions.Sessions)
	// as last read, nil without one or before initialize (see shared.go).
	stored atomic.Pointer[sessions.Record]
	// deleted is set once the store says the session ended for every
	// instance (see shared.go).
	deleted atomic.Bool
	// writeMu orders the session's writes to the store from this Handler,
	// so that the record each returns, which replaces stored, is newer
	// than the one it replaces (see sharedSession.change).
	writeMu sync.Mutex

	mu sync.Mutex
	// attached counts the HTTP handlers now serving the session. An int32
	// after the 4-byte fields above fills what they leave of 8 bytes: the
	// session is 240 B, where an int elsewhere made it 248 B (a 256 B
	// object).
	attached int32
	version  string            // negotiated protocol version, once initialize is answered
	initID   jsonrpc.ID        // the initialize request, until answered
	recv     jsonrpc.Receiver  // takes POSTed messages, once Push gave it; else they queue for Read
	queue    *readQueue        // POSTed messages for Read, without a Receiver; made on first use
	ended    error             // why the session ended; Read returns it once the queue is empty
	pending  []pendingResponse // requests awaiting their response, with their stream
	live     []*respStream     // POST streams not yet complete, for resumption
	get      *respStream       // the GET stream, once opened
	nextNum  int64             // the number of the next POST stream
	firstNum int64             // the number of the first POST stream here (see streamBase)
}

// readQueue holds a session's messages for a connection that reads them
// (Read) instead of taking a Receiver.
type readQueue struct {
	msgs []jsonrpc.Message // msgs[head:] are unread
	head int
	wake chan struct{} // signals a waiting Read
}

// pendingResponse ties a request of the session to the stream its response
// goes to.
type pendingResponse struct {
	id string // the request ID's raw text
	st *respStream
}

// newSession returns a session of principal, counted against client, with
// the given ID.
func newSession(h *Handler, id, principal, client string) *session {
	s := &session{h: h, id: id, principal: principal, client: client, nextNum: 1, firstNum: 1}
	if h.opts.Sessions != nil {
		s.nextNum = streamBase()
		s.firstNum = s.nextNum
	}
	s.touch()
	return s
}

// touch records activity now.
func (s *session) touch() { s.lastActive.Store(s.h.sessions.now().UnixNano()) }

// primes reports whether the session's SSE streams start with a priming
// event, which clients before 2025-11-25 do not expect.
func (s *session) primes() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version >= mcp.Version20251125
}

// Read returns the next message a client POSTed to the session.
func (s *session) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		s.mu.Lock()
		q := s.readQueueLocked()
		if q.head < len(q.msgs) {
			msg := q.msgs[q.head]
			q.msgs[q.head] = nil
			q.head++
			if q.head == len(q.msgs) {
				q.msgs, q.head = q.msgs[:0], 0
				if cap(q.msgs) > 16 {
					q.msgs = nil // do not keep a burst's queue on an idle session
				}
			}
			s.mu.Unlock()
			return msg, nil
		}
		if err := s.ended; err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.mu.Unlock()
		select {
		case <-q.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// readQueueLocked returns the session's read queue, making it on first
// use; s.mu is held.
func (s *session) readQueueLocked() *readQueue {
	if s.queue == nil {
		s.queue = &readQueue{wake: make(chan struct{}, 1)}
	}
	return s.queue
}

// Push implements jsonrpc.PushStream: from now on r takes the session's
// messages, starting with any queued for Read before.
func (s *session) Push(r jsonrpc.Receiver) {
	s.mu.Lock()
	s.recv = r
	var queued []jsonrpc.Message
	if s.queue != nil {
		queued = s.queue.msgs[s.queue.head:]
		s.queue = nil
	}
	s.mu.Unlock()
	for _, m := range queued {
		r.Receive(m, nil)
	}
}

// push passes messages on to the server's connection, or queues them for
// Read. Requests must already be registered with their response stream.
func (s *session) push(msgs []jsonrpc.Message) {
	s.mu.Lock()
	r := s.recv
	if r == nil {
		q := s.readQueueLocked()
		q.msgs = append(q.msgs, msgs...)
		s.signalLocked()
	}
	s.mu.Unlock()
	if r != nil {
		for _, m := range msgs {
			r.Receive(m, nil)
		}
	}
}

// serve passes on a request whose response the caller waits for anyway:
// a connection that took the session's Receiver serves it on the calling
// goroutine, which then finds the response written. Only a handler that
// never ends the HTTP response before it returns may be served so (the
// server cannot release the client's connection while its goroutine runs
// the handler): initialize, and the requests a StreamClosers says cannot.
func (s *session) serve(req *jsonrpc.Request) {
	s.mu.Lock()
	r := s.recv
	s.mu.Unlock()
	if r == nil {
		s.push([]jsonrpc.Message{req})
		return
	}
	r.Serve(req)
}

// signalLocked wakes a waiting Read; s.mu is held.
func (s *session) signalLocked() {
	if s.queue == nil {
		return // nobody reads the session
	}
	select {
	case s.queue.wake <- struct{}{}:
	default:
	}
}

// Write routes a message from the server: a response to the stream of the
// POST that carried its request; a message sent while handling a request
// (jsonrpc.InboundID) to that request's stream while it awaits its
// response; anything else to the GET stream. A message with nowhere to go
// is dropped: the client has no stream open to receive it.
func (s *session) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		established := s.noteInitialized(m)
		st := s.takePending(m.ID)
		if !established {
			return s.refuseInitialize(ctx, st, m)
		}
		if st != nil {
			return st.deliver(m, true)
		}
		s.h.opts.Logger.Debug("streamable: dropping a response nobody awaits", "session", s.id, "id", m.ID)
		return nil
	case jsonrpc.Batch:
		for _, el := range m {
			if err := s.Write(ctx, el); err != nil {
				return err
			}
		}
		return nil
	}
	if id, ok := jsonrpc.InboundID(ctx); ok {
		if st := s.pendingStream(id); st != nil {
			if err := st.deliver(msg, false); !errors.Is(err, errStreamEnded) {
				return err
			}
		}
	}
	s.mu.Lock()
	get := s.get
	s.mu.Unlock()
	if get == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsNotification() {
			// A request nobody can receive would wait for its answer
			// forever: its caller learns now.
			return fmt.Errorf("%w: the client of session %s has no GET stream open to receive %s", ErrNoStream, s.id, req.Method)
		}
		s.h.opts.Logger.Debug("streamable: dropping a server message: the client has no GET stream open", "session", s.id)
		return nil
	}
	if err := get.deliver(msg, false); !errors.Is(err, errStreamEnded) {
		return err
	}
	return nil
}

// noteInitialized records the protocol version an initialize response
// negotiated. It returns false for the answer to initialize that did not
// establish the session (an error): see refuseInitialize.
func (s *session) noteInitialized(resp *jsonrpc.Response) (established bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.initID.IsValid() || s.initID.Raw() != resp.ID.Raw() {
		return true
	}
	s.initID = jsonrpc.ID{}
	if resp.Error != nil {
		return false
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil {
		s.version = r.ProtocolVersion
	}
	return true
}

// errDuplicateID refuses a request that reuses the ID of one in progress.
var errDuplicateID = errors.New("streamable: request ID already in use")

// register makes a POST's stream await the responses to its requests. It
// fails with errDuplicateID, naming the ID, when a request reuses the ID of
// one still in progress, and with the session's end cause once it ended.
func (s *session) register(st *respStream, msgs []jsonrpc.Message) (dup jsonrpc.ID, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return jsonrpc.ID{}, s.ended
	}
	for _, m := range msgs {
		if req, isReq := m.(*jsonrpc.Request); isReq && !req.IsNotification() {
			for _, p := range s.pending {
				if p.id == req.ID.Raw() {
					return req.ID, errDuplicateID
				}
			}
		}
	}
	st.num = s.nextNum
	s.nextNum++
	for _, m := range msgs {
		if req, isReq := m.(*jsonrpc.Request); isReq && !req.IsNotification() {
			s.pending = append(s.pending, pendingResponse{id: req.ID.Raw(), st: st})
		}
	}
	s.live = append(s.live, st)
	return jsonrpc.ID{}, nil
}

// takePending removes and returns the stream awaiting the response to id.
func (s *session) takePending(id jsonrpc.ID) *respStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range s.pending {
		if p.id == id.Raw() {
			s.pending = deleteAt(s.pending, i)
			return p.st
		}
	}
	return nil
}

// pendingStream returns the stream awaiting the response to id, if any.
func (s *session) pendingStream(id jsonrpc.ID) *respStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pending {
		if p.id == id.Raw() {
			return p.st
		}
	}
	return nil
}

// cancelled handles a notifications/cancelled the client POSTed: the
// cancelled request will get no response, so its stream stops awaiting one.
func (s *session) cancelled(id jsonrpc.ID) {
	if st := s.takePending(id); st != nil {
		st.abandon()
	}
}

// cancelIn applies the notifications/cancelled among the messages of a
// POST body (see cancelled). The body's own requests must be registered
// first, so that a batch cancelling one of them finds its stream.
func (s *session) cancelIn(msgs []jsonrpc.Message) {
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsNotification() && req.Method == methodCancelled {
			if id, ok := cancelledID(req.Params); ok {
				s.cancelled(id)
			}
		}
	}
}

// streamDone forgets a completed POST stream.
func (s *session) streamDone(st *respStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.live {
		if l == st {
			s.live = deleteAt(s.live, i)
			break
		}
	}
	for i := 0; i < len(s.pending); {
		if s.pending[i].st == st {
			s.pending = deleteAt(s.pending, i)
			continue
		}
		i++
	}
}

// negotiated returns the session's protocol version ("" until initialize is
// answered).
func (s *session) negotiated() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// streamCount returns how many stream numbers the session has used: stream
// numbers below it exist or existed.
func (s *session) streamCount() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextNum
}

// openGet returns the session's GET stream, creating it on first use, or
// nil once the session has ended.
func (s *session) openGet() *respStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return nil
	}
	if s.get == nil {
		s.get = &respStream{h: s.h, sess: s, get: true, done: make(chan struct{})}
		if s.h.opts.Sessions != nil {
			s.get.first = getBase()
			s.get.index = s.get.first
		}
	}
	return s.get
}

// finishedStream returns a stand-in for completed stream num, through which
// a resuming client receives the events the stream stored.
func (s *session) finishedStream(num int64) *respStream {
	st := &respStream{h: s.h, sess: s, num: num, complete: true, done: make(chan struct{})}
	close(st.done)
	return st
}

// stream returns the live stream numbered num (0 is the GET stream), or nil.
func (s *session) stream(num int64) *respStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if num == 0 {
		return s.get
	}
	for _, st := range s.live {
		if st.num == num {
			return st
		}
	}
	return nil
}

// Close ends the session from the server's side; later requests naming it
// get 404.
func (s *session) Close() error {
	s.h.sessions.end(s, ErrSessionEnded)
	return nil
}

// attach counts an HTTP handler serving the session; the returned function
// uncounts it.
func (s *session) attach() func() {
	s.mu.Lock()
	s.attached++
	s.mu.Unlock()
	s.touch()
	return func() {
		s.mu.Lock()
		s.attached--
		s.mu.Unlock()
		s.touch()
	}
}

// idleSince reports whether the session has had no HTTP activity since t.
func (s *session) idleSince(t time.Time) bool {
	s.mu.Lock()
	attached := s.attached
	s.mu.Unlock()
	return attached == 0 && s.lastActive.Load() < t.UnixNano()
}

// shut marks the session ended with cause and returns its streams, which
// the caller ends; it reports false if the session had already ended.
func (s *session) shut(cause error) ([]*respStream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return nil, false
	}
	s.ended = cause
	streams := s.live
	if s.get != nil {
		streams = append(streams, s.get)
	}
	s.live, s.pending = nil, nil
	s.signalLocked()
	return streams, true
}

// endInput tells the server's connection, if it took the session's
// Receiver, that no more messages will come: the session ended with cause.
// (A connection reading the session learns it from Read.)
func (s *session) endInput(cause error) {
	s.mu.Lock()
	r := s.recv
	s.mu.Unlock()
	if r != nil {
		r.Receive(nil, cause)
	}
}

// deleteAt removes element i of a slice, keeping order, and returns nil
// once it is empty so that an idle session holds no backing array.
func deleteAt[T any](s []T, i int) []T {
	s = slices.Delete(s, i, i+1)
	if len(s) == 0 {
		return nil
	}
	return s
}

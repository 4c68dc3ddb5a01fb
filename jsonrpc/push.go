package jsonrpc

// PushStream is a Stream that hands its incoming messages to its Conn
// itself, from its own goroutines, instead of having them read: an idle
// Conn over it holds no goroutine (and no read buffer). A transport serving
// many mostly idle connections — an HTTP server keeping a session per
// client — implements it so that idle sessions cost only their memory.
//
// NewConn calls Push once, before it returns; from then on the stream
// passes every incoming message to the Receiver, and its Read is never
// called. Write and Close are used as for any Stream; after Close the
// stream should stop pushing (the Conn ignores what it is given then).
type PushStream interface {
	Stream
	// Push gives the stream the Receiver that takes in its messages.
	Push(r Receiver)
}

// Receiver takes a PushStream's incoming messages into its Conn. Its methods
// are safe to call from several goroutines at once; messages given at the
// same time are taken in one after the other, in an unspecified order, and
// messages given one after the other by one goroutine are taken in in that
// order (notification handlers see them so).
type Receiver interface {
	// Receive takes in one incoming message, or the error for one, exactly
	// as a read from the stream would have returned them: a Message; a
	// *DecodeError, which is answered as the Conn answers undecodable input;
	// or any other error, which ends input — io.EOF when the peer has gone
	// cleanly (accepted requests are still answered, then the connection
	// ends), anything else ending the connection at once. Nothing may be
	// received after the end of input.
	//
	// It returns without waiting for request handlers, which run on
	// goroutines of their own; it runs notification handlers before it
	// returns, and may write a protocol reply (an error response) itself
	// when many are waiting to be written.
	Receive(msg Message, err error)
	// Serve takes in msg as Receive does, but runs the handler of a single
	// request (not a batch) on the calling goroutine when a handler slot is
	// free, returning after its response has been written to the stream (or
	// suppressed, for a cancelled request). A transport calls it when its
	// goroutine would wait for the response anyway — an HTTP POST awaiting
	// its answer — which saves starting a goroutine and growing its stack
	// for every request. When the slots are full the request is queued as
	// with Receive, and Serve returns at once.
	Serve(msg Message)
}

// receiver is the Receiver a Conn gives its PushStream.
type receiver struct{ c *Conn }

// Receive takes in msg or err (see Receiver).
func (r receiver) Receive(msg Message, err error) {
	if r.c.inputEnded() {
		return
	}
	r.c.take(msg, err)
}

// Serve takes in msg, serving a single request inline (see Receiver).
func (r receiver) Serve(msg Message) {
	c := r.c
	req, ok := msg.(*Request)
	if !ok || req.IsNotification() {
		r.Receive(msg, nil)
		return
	}
	if c.inputEnded() {
		return
	}
	c.takeMu.Lock()
	in, reject := c.accept(req, nil, true)
	c.takeMu.Unlock()
	if reject != nil {
		c.reply(reject)
	}
	if in != nil {
		in.byCaller = true
		c.serve(in)
		c.served()
	}
}

// inputEnded reports whether input has ended or the connection is closing:
// a PushStream's later messages are ignored.
func (c *Conn) inputEnded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readDone || c.closing
}

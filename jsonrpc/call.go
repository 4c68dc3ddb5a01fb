package jsonrpc

import (
	"context"
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// call is an outgoing request awaiting its response.
type call struct {
	done chan struct{} // closed once resp or err is set
	resp *Response
	err  error
}

// finish completes the call; it is called exactly once, by whoever removed
// the call from Conn.pending.
func (cl *call) finish(resp *Response, err error) {
	cl.resp, cl.err = resp, err
	close(cl.done)
}

// Call sends a request with a fresh ID and waits for its response. result
// receives the response's result: a *json.RawMessage (or *jsontext.Value)
// gets the raw JSON, any other non-nil pointer is decoded into, nil discards
// it. An error response from the peer is returned as *Error. params may be a
// json.RawMessage, any value that encodes as a JSON object or array, or nil
// (or a nil pointer) for none. opts may have the ID reported (OnID).
//
// When ctx ends before the response arrives, the call is forgotten (a late
// response is dropped), ConnOptions.OnCallAbandoned is called with the
// context's cause (also when ctx ended while the stream was writing the
// request, which may have reached the peer), and an error wrapping the context's error (and its cause,
// when one was given) is returned.
func (c *Conn) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: call %s: %w", method, err)
	}
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	id := Int64ID(c.nextID.Add(1))
	cl := &call{done: make(chan struct{})}
	c.mu.Lock()
	if c.readDone || c.closing {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("jsonrpc: call %s: %w", method, err)
	}
	c.pending.put(id.raw, cl)
	c.mu.Unlock()
	if o.onID != nil {
		o.onID(id)
	}

	reached, err := c.writeTelling(ctx, &Request{ID: id, Method: method, Params: raw})
	switch {
	case err == nil:
		WillWait(ctx)
		select {
		case <-cl.done:
		case <-ctx.Done():
			if c.forget(id) {
				return c.abandon(ctx, id, method)
			}
			<-cl.done // the response won the race: use it
		}
	case !c.forget(id):
		<-cl.done // shutdown finished it meanwhile
	case reached && ctx.Err() != nil:
		// The context ended while the stream wrote the request, which may
		// have reached the peer all the same: abandoned, so the peer is
		// told (it ignores a cancellation of a request it never got).
		return c.abandon(ctx, id, method)
	default:
		return fmt.Errorf("jsonrpc: call %s: sending the request: %w", method, err)
	}
	switch {
	case cl.err != nil:
		return fmt.Errorf("jsonrpc: call %s: %w", method, cl.err)
	case cl.resp.Error != nil:
		return cl.resp.Error
	}
	return unmarshalResult(method, cl.resp.Result, result)
}

// abandon tells OnCallAbandoned of the forgotten call whose context ended
// and returns the call's error.
func (c *Conn) abandon(ctx context.Context, id ID, method string) error {
	cause := context.Cause(ctx)
	if c.onAbandoned != nil {
		c.onAbandoned(id, method, cause)
	}
	return abandonedError(method, id, ctx.Err(), cause)
}

// abandonedError is the error of a call given up when its context ended:
// it wraps the context's error and, when the caller gave one, the cause.
func abandonedError(method string, id ID, ctxErr, cause error) error {
	if cause == nil || cause == ctxErr {
		return fmt.Errorf("jsonrpc: call %s (id %s) abandoned: %w", method, id, ctxErr)
	}
	return fmt.Errorf("jsonrpc: call %s (id %s) abandoned: %w: %w", method, id, ctxErr, cause)
}

// Notify sends a notification: a request without an ID, which gets no
// response. params is as for Call.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	if err := c.write(ctx, &Request{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	return nil
}

// forget removes a pending call; it reports whether the call was still
// pending (so the caller now owns finishing it).
func (c *Conn) forget(id ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending.get(id.raw); !ok {
		return false
	}
	c.pending.remove(id.raw)
	return true
}

// deliver completes the pending call a response answers. A response for an
// unknown or abandoned ID (a cancellation that crossed the response on the
// wire) is dropped.
func (c *Conn) deliver(resp *Response) {
	c.mu.Lock()
	cl, _ := c.pending.get(resp.ID.raw)
	c.pending.remove(resp.ID.raw)
	c.mu.Unlock()
	if cl == nil {
		c.logger.Debug("jsonrpc: dropping a response for an unknown or abandoned call", "id", resp.ID)
		return
	}
	cl.finish(resp, nil)
}

// failCall completes the pending call with id, if any, with err.
func (c *Conn) failCall(id ID, err error) {
	c.mu.Lock()
	cl, _ := c.pending.get(id.raw)
	c.pending.remove(id.raw)
	c.mu.Unlock()
	if cl != nil {
		cl.finish(nil, err)
	}
}

// takePendingLocked removes and returns every pending call; c.mu is held.
func (c *Conn) takePendingLocked() []*call { return c.pending.takeAll() }

// marshalParams encodes params for the wire: nil (or JSON null) for none,
// otherwise a JSON object or array.
func marshalParams(params any) (stdjson.RawMessage, error) {
	var raw []byte
	switch p := params.(type) {
	case nil:
		return nil, nil
	case stdjson.RawMessage:
		raw = p
	case jsontext.Value:
		raw = p
	default:
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encoding params of type %T: %w", params, err)
		}
		raw = b
	}
	switch k := jsontext.Value(raw).Kind(); {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case k != '{' && k != '[':
		return nil, fmt.Errorf("params of type %T must encode as a JSON object or array, not %s", params, kindName(k))
	}
	return raw, nil
}

// unmarshalResult stores a response's result into result.
func unmarshalResult(method string, raw stdjson.RawMessage, result any) error {
	switch r := result.(type) {
	case nil:
		return nil
	case *stdjson.RawMessage:
		*r = raw
		return nil
	case *jsontext.Value:
		*r = jsontext.Value(raw)
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("jsonrpc: call %s: decoding the result into %T: %w", method, result, err)
	}
	return nil
}

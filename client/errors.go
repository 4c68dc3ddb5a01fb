package client

import (
	"errors"
	"fmt"
)

// ErrNotInVersion is wrapped by the error of a call that the negotiated
// protocol version does not have, such as ping or resources/subscribe on a
// 2026-07-28 session, or subscriptions/listen on a legacy one. The message
// names the method, the version and what to use instead.
var ErrNotInVersion = errors.New("not part of the negotiated protocol version")

// ErrNoHandler is wrapped by the error of a call whose server asked, through
// a multi round-trip input request, for something this client has no handler
// for (sampling, elicitation in the requested mode, or roots). Configure the
// matching handler in Options to serve such calls.
var ErrNoHandler = errors.New("no handler configured for the server's input request")

// ErrTooManyInputRounds is wrapped by the error of a call whose server kept
// answering input_required for more rounds than Options.MaxInputRounds allows.
var ErrTooManyInputRounds = errors.New("the server asked for input too many times")

// ErrSubscriptionEnded is the Err of a Subscription that the server ended:
// with a closing subscriptions/listen result or a notifications/cancelled for
// the listen request. Open a new subscription with Session.Listen if the
// notifications are still wanted.
var ErrSubscriptionEnded = errors.New("the server ended the subscription")

// InputError reports that the client could not answer one input request of
// an input_required result; the call that received it fails with this error.
type InputError struct {
	Key    string // the inputRequests key
	Method string // the input request's method, e.g. "elicitation/create"
	Err    error  // the handler's error, or one wrapping ErrNoHandler
}

// Error names the input request and why it could not be answered.
func (e *InputError) Error() string {
	return fmt.Sprintf("client: answering the server's input request %q (%s): %v", e.Key, e.Method, e.Err)
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

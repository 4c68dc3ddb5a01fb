package server

import (
	"errors"
	"unicode/utf8"

	"github.com/weftmcp/weft/jsonrpc"
)

// ErrRequestDone is returned by Request.Progress and Request.Log once the
// request has been answered: nothing related to a request may follow its
// response.
var ErrRequestDone = errors.New("server: the request has already been answered; no more notifications may be sent for it")

// ErrInputRequired is returned (wrapped) by Request.Elicit, Sample, ListRoots
// and AskAll in a modern (2026-07-28) request when the client has not
// answered yet. The handler must return it (or an error wrapping it): the
// server then answers with an InputRequiredResult, and runs the handler again
// from the start when the client retries with the answers, which the same
// calls then return. Handler code stays straight-line, but everything it does
// before its questions are answered runs once per round, so side effects
// belong after them.
var ErrInputRequired = errors.New("server: input required from the client")

// invalidParams returns a -32602 error whose message is formatted like
// fmt.Sprintf.
func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, format, args...)
}

// truncateText shortens s to at most n bytes (on a rune boundary) for an
// error message, marking the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Package wirejson carries a result's JSON text from the package that
// encoded it by hand to the jsonrpc package, which sends it without
// checking it again. Only this module can make one: outside it, nothing
// can vouch for bytes that jsonrpc would then put on the wire unchecked.
package wirejson

// Encoded is JSON text that its maker guarantees is one strict (valid
// UTF-8, unique member names) and compact (no whitespace, so no newline
// to break a line-framed transport) JSON value. Its field is unexported so
// that no other module can make one.
type Encoded struct{ text []byte }

// Vouch wraps text the caller has appended itself, token by token, or has
// checked and compacted (jsontext.AppendFormat).
func Vouch(text []byte) Encoded { return Encoded{text} }

// Text returns the JSON text.
func (e Encoded) Text() []byte { return e.text }

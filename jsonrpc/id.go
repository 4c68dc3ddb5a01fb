package jsonrpc

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// ID is a request identifier in its exact wire form: a JSON string or a JSON
// integer. The number 1 and the string "1" are different IDs. The zero ID means
// "absent" (a notification); NullID is the explicit null that error responses
// use when the request's ID could not be read.
type ID struct {
	raw string // the JSON text: `7`, `"abc"` or `null`; empty when absent
}

// NullID is the JSON null ID of an error response to an unreadable request.
var NullID = ID{raw: "null"}

// StringID returns the ID that is the JSON string s. Invalid UTF-8 in s is
// replaced by U+FFFD, as it would be on the wire.
func StringID(s string) ID {
	b, _ := jsontext.AppendQuote(nil, s) // the only error is invalid UTF-8, already replaced
	return ID{raw: string(b)}
}

// Int64ID returns the ID that is the JSON integer n.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// IsValid reports whether the ID is present (a request, not a notification).
func (id ID) IsValid() bool { return id.raw != "" }

// IsNull reports whether the ID is the JSON null.
func (id ID) IsNull() bool { return id.raw == "null" }

// Raw returns the ID's JSON text (`7`, `"abc"`, `null`), or "" when absent.
// Two IDs are the same request exactly when their Raw texts are equal.
func (id ID) Raw() string { return id.raw }

// String returns a form for logs and messages: the JSON text, or "<none>".
func (id ID) String() string {
	if id.raw == "" {
		return "<none>"
	}
	return id.raw
}

// MarshalJSON writes the ID in its original form; an absent ID writes null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a JSON string, a JSON integer or null, and rejects
// anything else (fractions, exponents, objects, arrays, booleans).
func (id *ID) UnmarshalJSON(data []byte) error {
	parsed, err := parseID(bytes.TrimSpace(data))
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// parseID validates one ID's JSON text and keeps it in a canonical form, so
// that equal IDs have equal Raw texts: a string as jsontext quotes it (minimal
// escaping), an integer in decimal without a sign on zero.
func parseID(data []byte) (ID, error) {
	switch {
	case len(data) == 0:
		return ID{}, fmt.Errorf("id is empty")
	case string(data) == "null":
		return NullID, nil
	case data[0] == '"':
		return parseStringID(data)
	case data[0] == '-' || (data[0] >= '0' && data[0] <= '9'):
		return parseIntegerID(data)
	default:
		return ID{}, fmt.Errorf("id %s must be a string or an integer", truncate(data, 40))
	}
}

// parseStringID keeps a string ID. A string of plain characters (no escapes,
// no control characters, valid UTF-8) is already canonical and is kept as is;
// any other string is unquoted and quoted again.
func parseStringID(data []byte) (ID, error) {
	if isPlainQuoted(data) {
		return ID{raw: string(data)}, nil
	}
	s, err := jsontext.AppendUnquote(nil, data)
	if err != nil {
		return ID{}, fmt.Errorf("id %s is not a valid JSON string", truncate(data, 40))
	}
	q, _ := jsontext.AppendQuote(nil, s) // s is valid UTF-8: AppendUnquote checked it
	return ID{raw: string(q)}, nil
}

// isPlainQuoted reports whether data is a quoted JSON string whose content
// needs no escaping at all, which is exactly the form jsontext.AppendQuote
// produces for it.
func isPlainQuoted(data []byte) bool {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return false
	}
	ascii := true
	for _, c := range data[1 : len(data)-1] {
		switch {
		case c < 0x20 || c == '"' || c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || utf8.Valid(data)
}

// parseIntegerID keeps an integer ID that fits in 64 bits.
func parseIntegerID(data []byte) (ID, error) {
	n, ok := parseInt64(data)
	if !ok {
		return ID{}, fmt.Errorf("id %s must be a string or an integer that fits in 64 bits", truncate(data, 40))
	}
	if data[0] != '-' && n >= 100 {
		// Already canonical: JSON forbids leading zeros, and there is no
		// sign. (Below 100, Int64ID allocates nothing.)
		return ID{raw: string(data)}, nil
	}
	return Int64ID(n), nil
}

// parseInt64 parses a JSON integer (optional minus, digits, no leading zeros,
// no fraction, no exponent) without allocating.
func parseInt64(data []byte) (int64, bool) {
	neg := len(data) > 0 && data[0] == '-'
	digits := data
	if neg {
		digits = data[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var u uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return -int64(u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// truncate shortens b for an error message.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

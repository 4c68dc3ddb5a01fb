package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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

// StringID returns the ID that is the JSON string s.
func StringID(s string) ID {
	b, _ := json.Marshal(s) // marshalling a Go string cannot fail
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
	parsed, err := parseID(data)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// parseID validates one ID's JSON text and keeps it in a canonical form: a
// string re-encoded the way encoding/json would write it, an integer as written.
func parseID(data []byte) (ID, error) {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0:
		return ID{}, fmt.Errorf("id is empty")
	case string(data) == "null":
		return NullID, nil
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return ID{}, fmt.Errorf("id is not a valid JSON string: %v", err)
		}
		return StringID(s), nil
	case data[0] == '-' || (data[0] >= '0' && data[0] <= '9'):
		n, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			return ID{}, fmt.Errorf("id %s must be a string or an integer that fits in 64 bits", data)
		}
		return Int64ID(n), nil
	default:
		return ID{}, fmt.Errorf("id %s must be a string or an integer", truncate(data, 40))
	}
}

// truncate shortens b for an error message.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

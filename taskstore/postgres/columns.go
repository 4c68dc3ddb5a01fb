package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// How record fields are kept in columns.

// timeArg returns the column value for t: nanoseconds since the Unix epoch,
// or NULL for the zero time. It fails for instants an int64 of nanoseconds
// cannot hold (before 1678 or after 2262).
func timeArg(t time.Time) (any, error) {
	if t.IsZero() {
		return nil, nil
	}
	if y := t.UTC().Year(); y < 1678 || y > 2261 {
		return nil, fmt.Errorf("postgres: the time %s is outside the years 1678 to 2261 the store can keep", t)
	}
	return t.UnixNano(), nil
}

// timeFrom reads a column written by timeArg.
func timeFrom(ns *int64) time.Time {
	if ns == nil {
		return time.Time{}
	}
	return time.Unix(0, *ns).UTC()
}

// rawArg returns the column value for raw JSON: NULL for nil, so that nil
// and empty stay apart.
func rawArg(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return []byte(b)
}

// rawFrom reads a column written by rawArg.
func rawFrom(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

// textArg returns the column value for a message a handler wrote (a
// status or error message): PostgreSQL's text holds neither NUL bytes nor
// invalid UTF-8 and refuses the whole write for one, so each is kept as
// U+FFFD instead. Refused, a failure quoting such input was never
// recorded, and the task stayed working until its lease lapsed.
func textArg(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

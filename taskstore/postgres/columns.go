package postgres

import (
	"encoding/json"
	"fmt"
	"time"
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

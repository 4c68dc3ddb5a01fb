package sqlite

import (
	"encoding/json"
	"fmt"
	"time"
)

// How values that SQLite has no type for are kept in columns.

// timeLayout writes an instant as UTC text of fixed width, so that comparing
// two texts compares the instants (the expiry and lease indexes rely on it)
// and nanoseconds survive the round trip.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// timeArg returns the column value for t: NULL for the zero time. It fails
// for years the fixed-width text cannot hold in order.
func timeArg(t time.Time) (any, error) {
	if t.IsZero() {
		return nil, nil
	}
	u := t.UTC()
	if y := u.Year(); y < 1 || y > 9999 {
		return nil, fmt.Errorf("sqlite: the time %s is outside the years 1 to 9999 the store can keep", t)
	}
	return u.Format(timeLayout), nil
}

// nullTime scans a column written by timeArg.
type nullTime struct{ t *time.Time }

// Scan implements sql.Scanner.
func (n nullTime) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*n.t = time.Time{}
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("sqlite: a time column holds a %T, not text", src)
	}
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return fmt.Errorf("sqlite: a time column holds %q, which is not a time this store wrote: %w", s, err)
	}
	*n.t = t
	return nil
}

// rawArg returns the column value for raw JSON: NULL for nil, so that nil
// and empty stay apart.
func rawArg(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return []byte(b)
}

// nullRaw scans a column written by rawArg. The driver hands an empty blob
// over as a nil []byte in a non-nil interface, which stays non-nil here.
type nullRaw struct{ b *json.RawMessage }

// Scan implements sql.Scanner.
func (n nullRaw) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*n.b = nil
	case []byte:
		*n.b = append(json.RawMessage{}, v...)
	case string:
		*n.b = json.RawMessage(v)
	default:
		return fmt.Errorf("sqlite: a JSON column holds a %T, not a blob", src)
	}
	return nil
}

// boolArg returns the column value for b.
func boolArg(b bool) int {
	if b {
		return 1
	}
	return 0
}

package tasks

import (
	"strconv"
	"strings"
)

// SeqCursor makes and reads the List cursors of a Store that numbers its
// records in the order they are created, never reusing a number: a cursor
// is the store's prefix followed by the base-36 number of the last record
// of the page, so paging is stable under inserts and deletes, and one
// store's cursors are refused by a store with another prefix.
type SeqCursor string

// Encode returns the cursor of a page whose last record is numbered seq.
func (p SeqCursor) Encode(seq int64) string {
	return string(p) + strconv.FormatInt(seq, 36)
}

// Decode returns the number in cursor, and false for a cursor this prefix
// did not make.
func (p SeqCursor) Decode(cursor string) (int64, bool) {
	rest, ok := strings.CutPrefix(cursor, string(p))
	if !ok || rest == "" {
		return 0, false
	}
	seq, err := strconv.ParseInt(rest, 36, 64)
	return seq, err == nil && seq > 0
}

package tasks

import (
	"fmt"
	"math"
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

// Page makes one List page for a store numbering its records: it reads the
// cursor (ErrInvalidCursor for one this prefix did not make), has fetch
// return up to n of the principal's records numbered after after, in order,
// each with its number, and asks for one more than limit to learn whether
// another page follows, whose cursor it returns ("" when none does).
func (p SeqCursor) Page(cursor string, limit int, fetch func(after int64, n int) ([]*Record, []int64, error)) ([]*Record, string, error) {
	if limit < 1 {
		return nil, "", fmt.Errorf("tasks: list: the page limit must be at least 1, not %d", limit)
	}
	var after int64
	if cursor != "" {
		var ok bool
		if after, ok = p.Decode(cursor); !ok {
			return nil, "", ErrInvalidCursor
		}
	}
	recs, seqs, err := fetch(after, limit+1)
	if err != nil {
		return nil, "", err
	}
	if len(recs) <= limit {
		return recs, "", nil
	}
	return recs[:limit], p.Encode(seqs[limit-1]), nil
}

// Below reads the cursor of an Inventory page, which lists records
// numbered below it, newest first: it returns math.MaxInt64 for the first
// page (cursor ""), and ErrInvalidCursor for a cursor this prefix did not
// make. A limit below 1 is an error.
func (p SeqCursor) Below(cursor string, limit int) (int64, error) {
	if limit < 1 {
		return 0, fmt.Errorf("the page limit must be at least 1, not %d", limit)
	}
	if cursor == "" {
		return math.MaxInt64, nil
	}
	seq, ok := p.Decode(cursor)
	if !ok {
		return 0, ErrInvalidCursor
	}
	return seq, nil
}

// EndBelow ends an Inventory page read newest first from a bounded scan:
// recs and their numbers seqs hold up to limit+1 matching records, and
// scanFull says the scan reached its bound, at oldest. The next page
// starts after the page's last record when there are more matches, or
// after the scan when it stopped at its bound (the page may then be
// short); otherwise there is none.
func (p SeqCursor) EndBelow(recs []*Record, seqs []int64, limit int, scanFull bool, oldest int64) ([]*Record, string) {
	switch {
	case len(recs) > limit:
		return recs[:limit], p.Encode(seqs[limit-1])
	case scanFull:
		return recs, p.Encode(oldest)
	}
	return recs, ""
}

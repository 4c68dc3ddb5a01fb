package tasks_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestSeqCursorRoundTrips(t *testing.T) {
	const p = tasks.SeqCursor("q")
	for _, seq := range []int64{1, 35, 36, 1 << 40} {
		if got, ok := p.Decode(p.Encode(seq)); !ok || got != seq {
			t.Errorf("Decode(Encode(%d)) = %d, %v", seq, got, ok)
		}
	}
	for _, bad := range []string{"", "q", "r1", "q-1", "q0", "qzzzzzzzzzzzzzzzzzzz", "q!"} {
		if _, ok := p.Decode(bad); ok {
			t.Errorf("Decode(%q) accepted a cursor the store did not make", bad)
		}
	}
}

func TestSeqCursorPage(t *testing.T) {
	const p = tasks.SeqCursor("q")
	all := []*tasks.Record{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	seqs := []int64{3, 7, 9}
	fetch := func(after int64, n int) ([]*tasks.Record, []int64, error) {
		var recs []*tasks.Record
		var nums []int64
		for i, s := range seqs {
			if s > after && len(recs) < n {
				recs, nums = append(recs, all[i]), append(nums, s)
			}
		}
		return recs, nums, nil
	}
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		recs, next, err := p.Page(cursor, 2, fetch)
		if err != nil || pages > 2 {
			t.Fatalf("page %d: %v (next %q)", pages, err, next)
		}
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(ids, "") != "abc" {
		t.Errorf("paged through %v, want a b c once each", ids)
	}
	if _, _, err := p.Page("r1", 2, fetch); err != tasks.ErrInvalidCursor {
		t.Errorf("another store's cursor: %v, want ErrInvalidCursor", err)
	}
	if _, _, err := p.Page("", 0, fetch); err == nil {
		t.Error("a limit of 0 was accepted")
	}
}

func TestNewAnswersAndIsRuleError(t *testing.T) {
	stored := &tasks.Record{Inputs: []tasks.Input{{Key: "a"}, {Key: "b", Response: []byte(`{}`)}, {Key: "c"}}}
	next := &tasks.Record{Inputs: []tasks.Input{{Key: "a"}, {Key: "b", Response: []byte(`{}`)}, {Key: "c", Response: []byte(`{}`)}, {Key: "d"}}}
	if got := tasks.NewAnswers(stored, next); len(got) != 1 || got[0] != 2 {
		t.Errorf("NewAnswers = %v, want [2]", got)
	}
	for _, err := range []error{tasks.ErrNotFound, fmt.Errorf("x: %w", tasks.ErrConflict), &tasks.LimitError{Scope: tasks.LimitTotal, Limit: 1}} {
		if !tasks.IsRuleError(err) {
			t.Errorf("IsRuleError(%v) = false", err)
		}
	}
	if tasks.IsRuleError(errors.New("disk full")) {
		t.Error("IsRuleError took an infrastructure error")
	}
}

func TestSeqCursorPagesBelow(t *testing.T) {
	const p = tasks.SeqCursor("xa")
	if seq, err := p.Below("", 10); err != nil || seq != math.MaxInt64 {
		t.Errorf(`Below("") = %d, %v; want the first page`, seq, err)
	}
	if seq, err := p.Below(p.Encode(42), 10); err != nil || seq != 42 {
		t.Errorf("Below(its own cursor of 42) = %d, %v", seq, err)
	}
	if _, err := p.Below(tasks.SeqCursor("xb").Encode(42), 10); !errors.Is(err, tasks.ErrInvalidCursor) {
		t.Errorf("Below(another prefix's cursor) = %v, want ErrInvalidCursor", err)
	}
	if _, err := p.Below("", 0); err == nil {
		t.Error("Below with a limit of 0 succeeded")
	}

	recs := []*tasks.Record{{ID: "c"}, {ID: "b"}, {ID: "a"}}
	seqs := []int64{30, 20, 10}
	if page, next := p.EndBelow(recs, seqs, 2, false, 0); len(page) != 2 || next != p.Encode(20) {
		t.Errorf("a page with one more match: %d records, next %q; want 2 and the cursor below 20", len(page), next)
	}
	if page, next := p.EndBelow(recs[:1], seqs[:1], 2, true, 5); len(page) != 1 || next != p.Encode(5) {
		t.Errorf("a short page whose scan was full: %d records, next %q; want 1 and the cursor below the scan", len(page), next)
	}
	if page, next := p.EndBelow(recs[:2], seqs[:2], 2, false, 0); len(page) != 2 || next != "" {
		t.Errorf("the last page: %d records, next %q; want 2 and no cursor", len(page), next)
	}
}

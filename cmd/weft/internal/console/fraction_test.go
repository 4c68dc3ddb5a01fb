package console

import "testing"

func TestCountIn(t *testing.T) {
	for _, c := range []struct {
		msg         string
		done, total float64
		ok          bool
	}{
		{"slept 3 of 10 seconds", 3, 10, true},
		{"2/4", 2, 4, true},
		{"step 1.5 / 3", 1.5, 3, true},
		{"working", 0, 0, false},
		{"", 0, 0, false},
		{"11 of 10", 0, 0, false}, // past the total: not a count
		{"0 of 0", 0, 0, false},
	} {
		done, total, ok := countIn(c.msg)
		if done != c.done || total != c.total || ok != c.ok {
			t.Errorf("countIn(%q) = %v, %v, %v; want %v, %v, %v", c.msg, done, total, ok, c.done, c.total, c.ok)
		}
	}
}

package console

import (
	"regexp"
	"strconv"
)

// countPattern finds a count of done out of total in a status message:
// "3/10", "3 of 10", "slept 3 of 10 seconds".
var countPattern = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:/|of)\s*(\d+(?:\.\d+)?)`)

// countIn returns the first count a status message states, so a task that
// reports its progress only in words (a task's statusMessage has no
// numbers of its own) still moves a bar; ok is false when there is none.
func countIn(msg string) (done, total float64, ok bool) {
	m := countPattern.FindStringSubmatch(msg)
	if m == nil {
		return 0, 0, false
	}
	done, err1 := strconv.ParseFloat(m[1], 64)
	total, err2 := strconv.ParseFloat(m[2], 64)
	if err1 != nil || err2 != nil || total <= 0 || done > total {
		return 0, 0, false
	}
	return done, total, true
}

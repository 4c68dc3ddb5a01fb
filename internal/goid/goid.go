// Package goid tells tests which goroutine runs them: the number the
// runtime gives a goroutine in its stack traces. Tests use it to check
// where work runs (on the goroutine that answered a request, on as few
// goroutines as a hand-off scheme promises); nothing else should.
package goid

import (
	"bytes"
	"runtime"
	"strconv"
)

// Current returns the calling goroutine's number, read from the first
// line of its stack trace ("goroutine 7 [running]:").
func Current() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(buf[:bytes.IndexByte(buf, ' ')]), 10, 64)
	return id
}

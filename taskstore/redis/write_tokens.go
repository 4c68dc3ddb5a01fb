package redis

import (
	"crypto/rand"
	"strconv"
	"sync/atomic"
)

// Write tokens. go-redis sends a command again when its reply is lost (a
// connection reset, EOF or read timeout; up to MaxRetries, 3 by default,
// pipelines included), so a create or update script may run twice, and
// the second run would refuse what the first did: "exists" for the task
// the first stored, "stale" for the version the first wrote. Each write
// therefore stores a token of its own in the task's hash (field fToken,
// the first pair of its field list), and a run that finds the hash as its
// own earlier run left it answers as that run did. The token rides in the
// field list, which the script writes anyway: no argument, allocation or
// round trip of its own. A hash without the field (stored before it)
// reads and updates as before.
//
// What it cannot tell: a write that another one followed between the two
// runs (an Update, or RenewLeases moving the version) is refused as before.
// go-redis retries within milliseconds, before the writer has answered
// anyone, so another write in between is rare.

// writeTokens makes a Store's write tokens: a random prefix of the Store's
// own and a count of its writes.
type writeTokens struct {
	prefix string
	n      atomic.Uint64
}

// newWriteTokens returns the write tokens of a new Store.
func newWriteTokens() *writeTokens {
	return &writeTokens{prefix: rand.Text()}
}

// next returns a new token.
func (w *writeTokens) next() string {
	return w.prefix + strconv.FormatUint(w.n.Add(1), 10)
}

// add appends a new token to l, as the pair of field fToken.
func (w *writeTokens) add(l *fieldList) {
	var b [64]byte
	l.addRaw(fToken, strconv.AppendUint(append(b[:0], w.prefix...), w.n.Add(1), 10))
}

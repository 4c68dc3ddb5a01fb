package adversarial

import (
	"bytes"
	"io"
)

// hugeBodySize is the size of the oversized messages: 100 MB, 25 times the
// transports' default limit.
const hugeBodySize = 100 << 20

// hugeBody is an io.Reader of a message of size bytes that is never held in
// memory: the start of a tools/call whose argument is a string of x's.
type hugeBody struct {
	prefix  []byte
	size    int64
	off     int64
	chunked bool // over HTTP: sent without a Content-Length
}

// filler is what hugeBody repeats after its prefix.
var filler = bytes.Repeat([]byte("x"), 64<<10)

// newHugeBody returns a reader of a size-byte message at version v.
func newHugeBody(v string, size int64) *hugeBody {
	prefix := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + metaFor(v) + `,"name":"echo","arguments":{"s":"`
	return &hugeBody{prefix: []byte(prefix), size: size}
}

func (b *hugeBody) Read(p []byte) (int, error) {
	if b.off >= b.size {
		return 0, io.EOF
	}
	if rest := b.size - b.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	n := 0
	if b.off < int64(len(b.prefix)) {
		n = copy(p, b.prefix[b.off:])
	}
	for n < len(p) {
		n += copy(p[n:], filler)
	}
	b.off += int64(n)
	return n, nil
}

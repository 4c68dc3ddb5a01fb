package redis

import (
	"encoding/binary"
	"strconv"
	"time"
)

// A field list carries a task hash's field-value pairs (or the names of
// fields to delete) to a write script as one argument: a MessagePack array
// of strings, which the script turns back into HSET's (or HDEL's)
// arguments with Redis's built-in cmsgpack.unpack. The hash is stored as
// before, a field per record field.
//
// As an argument per field, every name and value was boxed into an `any`
// and written by go-redis on its own: in the harness's Redis stdio row at
// 32 in flight, writing the scripts' arguments was 13 µs of weft's 133 µs a
// task. In one list, BenchmarkPolledTaskLife (Redis, 32 in flight, two
// interleaved pairs) went from 171 to 135 allocations and 15.0 to 11.2 KB
// a life, and its CPU from 117, 94 to 103, 81 µs.
type fieldList struct {
	buf []byte
	n   uint32 // strings in the list
}

// arrayHeader is the list's MessagePack array header: the array 32 type
// byte and the count, written when the list is done.
const arrayHeader = 5

// newFieldList returns an empty list with room for size bytes of names
// and values.
func newFieldList(size int) fieldList {
	buf := make([]byte, arrayHeader, arrayHeader+size)
	buf[0] = 0xdd
	return fieldList{buf: buf}
}

// strHeader appends the header of a MessagePack string of n bytes, whose
// bytes the caller appends next. It uses only the fixstr, str 16 and
// str 32 forms, which every cmsgpack Redis has shipped decodes.
func (l *fieldList) strHeader(n int) {
	switch {
	case n < 32:
		l.buf = append(l.buf, 0xa0|byte(n))
	case n < 1<<16:
		l.buf = append(l.buf, 0xda, byte(n>>8), byte(n))
	default:
		l.buf = binary.BigEndian.AppendUint32(append(l.buf, 0xdb), uint32(n))
	}
	l.n++
}

// str appends s: a name or value of a pair, or a field name alone in a
// list of fields to delete.
func (l *fieldList) str(s string) {
	l.strHeader(len(s))
	l.buf = append(l.buf, s...)
}

// add appends a field and its value.
func (l *fieldList) add(name, value string) {
	l.str(name)
	l.str(value)
}

// addRaw appends a field whose value is raw bytes (JSON), kept as they are.
func (l *fieldList) addRaw(name string, value []byte) {
	l.str(name)
	l.strHeader(len(value))
	l.buf = append(l.buf, value...)
}

// addInt appends a field whose value is n in decimal.
func (l *fieldList) addInt(name string, n int64) {
	var b [20]byte
	l.addRaw(name, strconv.AppendInt(b[:0], n, 10))
}

// addTime appends a field whose value is t as formatTime writes it.
func (l *fieldList) addTime(name string, t time.Time) {
	var b [40]byte
	l.addRaw(name, t.UTC().AppendFormat(b[:0], time.RFC3339Nano))
}

// bytes returns the finished list, as one script argument.
func (l *fieldList) bytes() []byte {
	binary.BigEndian.PutUint32(l.buf[1:arrayHeader], l.n)
	return l.buf
}

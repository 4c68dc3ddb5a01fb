package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// state is what one Validate call works with, pooled by its Validator so
// that validating allocates nothing.
type state struct {
	src  []byte       // the instance
	rd   bytes.Buffer // reads src; a Decoder parses a bytes.Buffer's bytes in place
	dec  *jsontext.Decoder
	str  []byte   // scratch: an unquoted string value
	name []byte   // scratch: an unquoted member name
	seen []uint64 // the required names seen, for each object being read
}

// maxScratch bounds the scratch a pooled state keeps.
const maxScratch = 64 << 10

// Validate reports whether instance, one JSON value, is valid against the
// schema. The error names where in the instance the first problem found is
// and what it is, such as
//
//	author.name: type: 7 has type "integer", want "string"
//	tags[2]: maxLength: "abcdef" contains 6 Unicode code points, more than 5
//	required: missing properties: ["text"]
//
// An instance that is not exactly one valid JSON value gets an error that
// begins "not valid JSON".
func (v *Validator) Validate(instance []byte) error {
	st, _ := v.pool.Get().(*state)
	if st == nil {
		st = &state{dec: jsontext.NewDecoder(&bytes.Buffer{})}
	}
	st.reset(instance)
	err := st.value(v.root)
	if err == nil {
		err = st.end()
	} else if !errors.Is(err, errSyntax) {
		// A problem found while reading the valid beginning of an instance
		// that turns out to be malformed: the malformation comes first.
		if serr := st.syntaxCheck(); serr != nil {
			err = serr
		}
	}
	st.reset(nil) // pin neither the instance nor large scratch
	if cap(st.str) > maxScratch {
		st.str = nil
	}
	if cap(st.name) > maxScratch {
		st.name = nil
	}
	v.pool.Put(st)
	return err
}

// errSyntax is wrapped by the errors for instances that are not valid JSON.
var errSyntax = errors.New("not valid JSON")

// reset readies st to read src.
func (st *state) reset(src []byte) {
	st.src = src
	st.rd = *bytes.NewBuffer(src)
	st.dec.Reset(&st.rd)
	st.seen = st.seen[:0]
}

// end checks that nothing follows the instance's value.
func (st *state) end() error {
	switch _, err := st.dec.ReadToken(); err {
	case io.EOF:
		return nil
	case nil:
		return fmt.Errorf("%w: more than one top-level value", errSyntax)
	default:
		return st.syntax(err)
	}
}

// syntaxCheck reads the whole instance afresh and returns the error for its
// first malformation, if any.
func (st *state) syntaxCheck() error {
	st.reset(st.src)
	if err := st.dec.SkipValue(); err != nil {
		return st.syntax(err)
	}
	return st.end()
}

// syntax wraps an error of the decoder.
func (st *state) syntax(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: %w", errSyntax, err)
}

// value reads the next value and checks it against n.
func (st *state) value(n *node) error {
	if n == nil {
		return st.skip()
	}
	switch st.dec.PeekKind() {
	case '{':
		return st.object(n)
	case '[':
		return st.array(n)
	}
	v, err := st.dec.ReadValue()
	if err != nil {
		return st.syntax(err)
	}
	return st.scalar(n, v)
}

// skip reads the next value, which any schema accepts, checking only that
// its numbers are within the range of float64.
func (st *state) skip() error {
	for depth := 0; ; {
		switch st.dec.PeekKind() {
		case '{', '[':
			if _, err := st.dec.ReadToken(); err != nil {
				return st.syntax(err)
			}
			depth++
		case '}', ']':
			if _, err := st.dec.ReadToken(); err != nil {
				return st.syntax(err)
			}
			depth--
		default:
			v, err := st.dec.ReadValue()
			if err != nil {
				return st.syntax(err)
			}
			if v.Kind() == '0' && mayOverflow(v) {
				if _, ok := parseNumber(v); !ok {
					return st.fail("number %s is beyond the range of a 64-bit float", clip(string(v)))
				}
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// scalar checks the scalar v (null, boolean, number or string) against n.
func (st *state) scalar(n *node, v jsontext.Value) error {
	if n.never {
		return st.mismatch(n, 0, v)
	}
	var (
		t kinds
		f float64
		s []byte // a string, unquoted
	)
	switch v.Kind() {
	case 'n':
		t = kindNull
	case 't', 'f':
		t = kindBoolean
	case '"':
		t = kindString
		if n.textual || n.hasEnum || n.konst != nil {
			s = st.unquote(v)
		}
	case '0':
		var ok bool
		if f, ok = parseNumber(v); !ok {
			return st.fail("number %s is beyond the range of a 64-bit float", clip(string(v)))
		}
		t = kindNumber
		if f == math.Trunc(f) {
			t = kindInteger
		}
	}
	if n.types != 0 && n.types&t == 0 {
		return st.mismatch(n, t, v)
	}
	if n.hasEnum && !n.inEnum(func(l *literal) bool { return l.equalScalar(t, v, f, s) }) {
		return st.notInEnum(n, v)
	}
	if n.konst != nil && !n.konst.equalScalar(t, v, f, s) {
		return st.notConst(n, v)
	}
	if n.numeric && t&(kindNumber|kindInteger) != 0 {
		if err := st.number(n, f, v); err != nil {
			return err
		}
	}
	if n.textual && t == kindString {
		return st.text(n, s)
	}
	return nil
}

// number checks the number f, written v, against n's number keywords.
func (st *state) number(n *node, f float64, v []byte) error {
	if n.hasMulOf {
		// As the general validator computes it.
		if _, frac := math.Modf(f / n.multipleOf); frac != 0 {
			return st.fail("multipleOf: %s is not a multiple of %s", v, formatFloat(n.multipleOf))
		}
	}
	if n.hasMin && f < n.min {
		return st.fail("minimum: %s is less than %s", v, formatFloat(n.min))
	}
	if n.hasMax && f > n.max {
		return st.fail("maximum: %s is greater than %s", v, formatFloat(n.max))
	}
	if n.hasExMin && f <= n.exMin {
		return st.fail("exclusiveMinimum: %s is less than or equal to %s", v, formatFloat(n.exMin))
	}
	if n.hasExMax && f >= n.exMax {
		return st.fail("exclusiveMaximum: %s is greater than or equal to %s", v, formatFloat(n.exMax))
	}
	return nil
}

// text checks the string s (unquoted) against n's string keywords.
func (st *state) text(n *node, s []byte) error {
	if n.minLen >= 0 || n.maxLen >= 0 {
		count := utf8.RuneCount(s)
		if n.minLen >= 0 && count < n.minLen {
			return st.fail("minLength: %s contains %d Unicode code points, fewer than %d", quote(s), count, n.minLen)
		}
		if n.maxLen >= 0 && count > n.maxLen {
			return st.fail("maxLength: %s contains %d Unicode code points, more than %d", quote(s), count, n.maxLen)
		}
	}
	if n.pattern != nil && !n.pattern.Match(s) {
		return st.fail("pattern: %s does not match regular expression %q", quote(s), n.pattern)
	}
	return nil
}

// object reads an object and checks it against n.
func (st *state) object(n *node) error {
	if n.never || n.types != 0 && n.types&kindObject == 0 {
		v, err := st.dec.ReadValue()
		if err != nil {
			return st.syntax(err)
		}
		return st.mismatch(n, kindObject, v)
	}
	start := st.dec.InputOffset()
	if _, err := st.dec.ReadToken(); err != nil {
		return st.syntax(err)
	}
	seen := len(st.seen)
	for range n.requiredWords() {
		st.seen = append(st.seen, 0)
	}
	var (
		count      int
		unexpected []string
	)
	for st.dec.PeekKind() != '}' {
		name, err := st.dec.ReadValue()
		if err != nil {
			return st.syntax(err)
		}
		count++
		schema, additional := n.additional, true
		if i := n.lookup(st.unquoteName(name)); i >= 0 {
			m := &n.members[i]
			if m.bit >= 0 {
				st.seen[seen+m.bit/64] |= 1 << (m.bit % 64)
			}
			if m.property {
				schema, additional = m.schema, false
			}
		}
		if additional && n.noAdditional {
			unexpected = append(unexpected, string(st.unquoteName(name)))
		}
		if err := st.value(schema); err != nil {
			return err
		}
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return st.syntax(err)
	}
	if unexpected != nil {
		return st.fail("unexpected additional properties %q", unexpected)
	}
	if n.minProps >= 0 && count < n.minProps {
		return st.fail("minProperties: object has %d properties, less than %d", count, n.minProps)
	}
	if n.maxProps >= 0 && count > n.maxProps {
		return st.fail("maxProperties: object has %d properties, greater than %d", count, n.maxProps)
	}
	if err := st.required(n, st.seen[seen:]); err != nil {
		return err
	}
	st.seen = st.seen[:seen]
	return st.compound(n, start, kindObject)
}

// required checks that an object had every required name, given the set of
// those it had.
func (st *state) required(n *node, seen []uint64) error {
	all := true
	for w := range seen {
		want := ^uint64(0)
		if rest := n.nRequired - 64*w; rest < 64 {
			want = 1<<rest - 1
		}
		all = all && seen[w] == want
	}
	if all {
		return nil
	}
	var missing []string
	for i, bit := range n.requiredBit {
		if seen[bit/64]&(1<<(bit%64)) == 0 {
			missing = append(missing, n.required[i])
		}
	}
	return st.fail("required: missing properties: %q", missing)
}

// array reads an array and checks it against n.
func (st *state) array(n *node) error {
	if n.never || n.types != 0 && n.types&kindArray == 0 {
		v, err := st.dec.ReadValue()
		if err != nil {
			return st.syntax(err)
		}
		return st.mismatch(n, kindArray, v)
	}
	start := st.dec.InputOffset()
	if _, err := st.dec.ReadToken(); err != nil {
		return st.syntax(err)
	}
	var (
		items  map[string]int // canonical item to its index, for uniqueItems
		dup    [2]int         // the first two equal items found
		hasDup bool
		i      int
	)
	for ; st.dec.PeekKind() != ']'; i++ {
		itemStart := st.dec.InputOffset()
		if err := st.value(n.items); err != nil {
			return err
		}
		if n.unique && !hasDup {
			c, err := canonical(st.raw(itemStart))
			if err != nil {
				return st.syntax(err)
			}
			if j, seen := items[c]; seen {
				dup, hasDup = [2]int{j, i}, true
			}
			if items == nil {
				items = make(map[string]int)
			}
			items[c] = i
		}
	}
	if _, err := st.dec.ReadToken(); err != nil {
		return st.syntax(err)
	}
	if n.minItems >= 0 && i < n.minItems {
		return st.fail("minItems: array length %d is less than %d", i, n.minItems)
	}
	if n.maxItems >= 0 && i > n.maxItems {
		return st.fail("maxItems: array length %d is greater than %d", i, n.maxItems)
	}
	if hasDup {
		return st.fail("uniqueItems: array items %d and %d are equal", dup[0], dup[1])
	}
	return st.compound(n, start, kindArray)
}

// compound checks an object or array (of type t), just read from offset
// start, against n's enum and const.
func (st *state) compound(n *node, start int64, t kinds) error {
	if !n.hasEnum && n.konst == nil {
		return nil
	}
	raw := st.raw(start)
	var c string
	if n.compound {
		var err error
		if c, err = canonical(raw); err != nil {
			return st.syntax(err)
		}
	}
	equal := func(l *literal) bool { return l.kind == t && l.str == c }
	if n.hasEnum && !n.inEnum(equal) {
		return st.notInEnum(n, raw)
	}
	if n.konst != nil && !equal(n.konst) {
		return st.notConst(n, raw)
	}
	return nil
}

// raw returns the value read since offset start (which may precede the
// value's delimiter and whitespace).
func (st *state) raw(start int64) []byte {
	return bytes.TrimLeft(st.src[start:st.dec.InputOffset()], " \t\r\n,:")
}

// inEnum reports whether a literal of n's enum satisfies equal.
func (n *node) inEnum(equal func(*literal) bool) bool {
	for i := range n.enum {
		if equal(&n.enum[i]) {
			return true
		}
	}
	return false
}

// unquote returns the value of the JSON string v, in st's scratch when it
// has escapes.
func (st *state) unquote(v []byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	st.str, _ = jsontext.AppendUnquote(st.str[:0], v) // the decoder validated v
	return st.str
}

// unquoteName is unquote for member names, which must survive the
// unquoting of string values.
func (st *state) unquoteName(v []byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	st.name, _ = jsontext.AppendUnquote(st.name[:0], v)
	return st.name
}

// mismatch reports a value v of type t that n's type (or n's being the
// schema false) rules out. t is 0 for scalars when n is false.
func (st *state) mismatch(n *node, t kinds, v jsontext.Value) error {
	if n.never {
		return st.fail("%s is not allowed: the schema is false", show(v))
	}
	return st.fail("type: %s has type %q, want %s", show(v), t, n.want)
}

// notInEnum reports a value v that equals no value of n's enum.
func (st *state) notInEnum(n *node, v []byte) error {
	texts := make([]string, len(n.enum))
	for i := range n.enum {
		texts[i] = n.enum[i].text
	}
	return st.fail("enum: %s does not equal any of: [%s]", show(v), clip(strings.Join(texts, ", ")))
}

// notConst reports a value v that differs from n's const.
func (st *state) notConst(n *node, v []byte) error {
	return st.fail("const: %s does not equal %s", show(v), clip(n.konst.text))
}

// fail returns the error for a problem with the value last read, naming
// where it is in the instance.
func (st *state) fail(format string, args ...any) error {
	var b strings.Builder
	level := 1
	for token := range st.dec.StackPointer().Tokens() {
		switch kind, _ := st.dec.StackIndex(level); {
		case kind == '[':
			fmt.Fprintf(&b, "[%s]", token)
		case plainName(token):
			if level > 1 {
				b.WriteByte('.')
			}
			b.WriteString(token)
		default:
			fmt.Fprintf(&b, "[%q]", token)
		}
		level++
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, format, args...)
	return errors.New(b.String())
}

// plainName reports whether a member name reads unambiguously in a dotted
// path, rather than needing to be written ["quoted"].
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r == '.' || r == '[' || r == ']' || r == '"' || r == ':' || r == ' ' || !strconv.IsGraphic(r) {
			return false
		}
	}
	return true
}

// show renders a value for a message: a string as its text, unquoted (as the
// general validator does), anything else as compact JSON; both clipped.
func show(v jsontext.Value) string {
	if v.Kind() == '"' {
		s, _ := jsontext.AppendUnquote(nil, v)
		return clip(string(s))
	}
	c := jsontext.Value(bytes.Clone(v))
	_ = c.Compact() // the decoder validated v
	return clip(string(c))
}

// quote renders a string for a message, quoted and clipped.
func quote(s []byte) string {
	return strconv.Quote(clip(string(s)))
}

// clipAt is the length beyond which values in messages are clipped.
const clipAt = 80

// clip shortens s to about clipAt bytes, at a character boundary, marking
// the cut with an ellipsis.
func clip(s string) string {
	if len(s) <= clipAt {
		return s
	}
	i := clipAt
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// formatFloat renders a schema's number for a message: integers below 10²¹
// in full, as JSON encoders write them, others in the shortest form.
func formatFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

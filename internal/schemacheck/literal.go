package schemacheck

import (
	"bytes"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// literal is a value of "enum" or "const", decoded for comparing with
// instances as JSON Schema does: numbers by value, objects regardless of
// member order.
type literal struct {
	kind kinds   // kindNumber stands for every number
	b    bool    // a boolean's value
	num  float64 // a number's value
	str  string  // a string's value, or an object's or an array's canonical form
	text string  // the value as the schema writes it, compacted, for messages
}

// newLiteral decodes a JSON value of "enum" or "const".
func newLiteral(v jsontext.Value) (literal, error) {
	// Decoding into Go values rejects, as the general validator does, what
	// cannot be compared as it compares: numbers beyond float64.
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return literal{}, err
	}
	text := jsontext.Value(bytes.Clone(v))
	if err := text.Compact(); err != nil {
		return literal{}, err
	}
	l := literal{text: string(text)}
	var err error
	switch v.Kind() {
	case 'n':
		l.kind = kindNull
	case 't', 'f':
		l.kind, l.b = kindBoolean, x.(bool)
	case '0':
		l.kind, l.num = kindNumber, x.(float64)
	case '"':
		l.kind, l.str = kindString, x.(string)
	case '{':
		l.kind = kindObject
		l.str, err = canonical(v)
	case '[':
		l.kind = kindArray
		l.str, err = canonical(v)
	}
	return l, err
}

// compound reports whether l is an object or an array.
func (l *literal) compound() bool {
	return l.kind == kindObject || l.kind == kindArray
}

// equalScalar reports whether l equals a scalar instance of type t: number
// f, string s (unquoted), or the boolean or null literal v.
func (l *literal) equalScalar(t kinds, v []byte, f float64, s []byte) bool {
	switch l.kind {
	case kindNull:
		return t == kindNull
	case kindBoolean:
		return t == kindBoolean && (v[0] == 't') == l.b
	case kindNumber:
		return t&(kindNumber|kindInteger) != 0 && f == l.num
	case kindString:
		return t == kindString && string(s) == l.str
	}
	return false
}

// canonical returns the canonical form (RFC 8785) of a JSON value, in which
// equal values (numbers compared as float64) are equal strings.
func canonical(v []byte) (string, error) {
	c := jsontext.Value(bytes.Clone(v))
	if err := c.Canonicalize(); err != nil {
		return "", err
	}
	return string(c), nil
}

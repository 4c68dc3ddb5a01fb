package mcp

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
)

// member is one member of a JSON object.
type member struct {
	name  string
	value jsontext.Value
}

// setMember replaces the value of name, or appends it.
func setMember(ms []member, name string, value jsontext.Value) []member {
	for i := range ms {
		if ms[i].name == name {
			ms[i].value = value
			return ms
		}
	}
	return append(ms, member{name, value})
}

// orderedObject is a JSON object as its members in order.
type orderedObject []member

// MarshalJSONTo writes the members as an object.
func (o *orderedObject) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, m := range *o {
		if err := enc.WriteToken(jsontext.String(m.name)); err != nil {
			return err
		}
		if err := enc.WriteValue(m.value); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// UnmarshalJSONFrom reads an object's members in order.
func (o *orderedObject) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("got a JSON %s, want an object", jsonkind.Name(tok.Kind()))
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // a token is valid only until the next read
		val, err := dec.ReadValue()
		if err != nil {
			return err
		}
		*o = append(*o, member{name, val.Clone()})
	}
	_, err = dec.ReadToken()
	return err
}

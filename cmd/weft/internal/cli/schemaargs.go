package cli

import (
	"bytes"
	stdjson "encoding/json"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// schemaArg is one argument of a tool, as its input schema describes it.
type schemaArg struct {
	name        string
	typ         string // the JSON Schema type; "" when not one name
	description string
	required    bool
}

// schemaArgs reads the arguments of a tool's input schema in the order the
// schema lists them. A type is kept when it is one name, or one name and
// "null"; other schemas leave it empty.
func schemaArgs(schema stdjson.RawMessage) []schemaArg {
	var s struct {
		Properties jsontext.Value `json:"properties"`
		Required   []string       `json:"required"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	var props map[string]struct {
		Type        jsontext.Value `json:"type"`
		Description string         `json:"description"`
	}
	if json.Unmarshal(s.Properties, &props) != nil {
		return nil
	}
	var out []schemaArg
	for _, name := range memberNames(s.Properties) {
		p := props[name]
		out = append(out, schemaArg{name: name, typ: oneType(p.Type), description: p.Description, required: slices.Contains(s.Required, name)})
	}
	return out
}

// memberNames returns the names of a JSON object's members in order.
func memberNames(obj jsontext.Value) []string {
	dec := jsontext.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var names []string
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return names
		}
		names = append(names, tok.String())
		if err := dec.SkipValue(); err != nil {
			return names
		}
	}
	return names
}

// oneType is the type a JSON Schema "type" member names: the name itself,
// or the one besides "null" in a list of two; else "".
func oneType(v jsontext.Value) string {
	var one string
	var many []string
	switch {
	case len(v) == 0:
	case json.Unmarshal(v, &one) == nil:
		return one
	case json.Unmarshal(v, &many) == nil && len(many) == 2 && many[0] == "null":
		return many[1]
	case len(many) == 2 && many[1] == "null":
		return many[0]
	}
	return ""
}

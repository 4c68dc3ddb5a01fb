// Package frontmatter reads the YAML frontmatter at the top of a markdown
// file (a skill's SKILL.md) and renders it as a JSON object.
package frontmatter

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// block matches a leading "---" line, the YAML, and a closing "---" line (a
// UTF-8 byte order mark before it is tolerated), as the Skills conformance
// suite reads SKILL.md.
var block = regexp.MustCompile(`\A(?:\x{FEFF})?---\r?\n((?s:.*?))\r?\n---[ \t]*(?:\r?\n|\z)`)

// ErrNone is returned (wrapped) when the text does not start with a
// frontmatter block.
var ErrNone = errors.New("the file does not start with a --- delimited YAML frontmatter block")

// Parse returns the frontmatter of text as JSON object members, each value
// the JSON form of the YAML value (strings, numbers, booleans, null, lists
// and objects, as a standard YAML 1.2 parser reads them), and the rest of
// the text after the block.
func Parse(text []byte) (map[string]stdjson.RawMessage, []byte, error) {
	m := block.FindSubmatchIndex(text)
	if m == nil {
		return nil, nil, ErrNone
	}
	var doc any
	if err := yaml.Unmarshal(text[m[2]:m[3]], &doc); err != nil {
		return nil, nil, fmt.Errorf("the frontmatter is not valid YAML: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("the frontmatter must be a YAML mapping, not %T", doc)
	}
	out := make(map[string]stdjson.RawMessage, len(obj))
	for k, v := range obj {
		j, err := toJSON(v, k)
		if err != nil {
			return nil, nil, err
		}
		raw, err := stdjson.Marshal(j)
		if err != nil {
			return nil, nil, fmt.Errorf("frontmatter field %s: %w", k, err)
		}
		out[k] = raw
	}
	return out, text[m[1]:], nil
}

// toJSON converts a decoded YAML value to one encoding/json can encode: maps
// need string keys, and floats must be finite.
func toJSON(v any, path string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			j, err := toJSON(e, path+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = j
		}
		return out, nil
	case map[any]any:
		return nil, fmt.Errorf("frontmatter field %s: a mapping key that is not a string cannot be a JSON member name", path)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			j, err := toJSON(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("frontmatter field %s: %v has no JSON form", path, v)
		}
	}
	return v, nil
}

// Equal reports whether two frontmatter objects hold the same members with
// the same values, compared as JSON values (member order and number spelling
// aside). A member missing on one side equals null on the other, as the
// Skills conformance suite compares them.
func Equal(a, b map[string]stdjson.RawMessage) bool {
	for k := range a {
		if !equalValue(a[k], b[k]) {
			return false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && !equalValue(nil, b[k]) {
			return false
		}
	}
	return true
}

// equalValue compares two raw JSON values; nil stands for null.
func equalValue(a, b stdjson.RawMessage) bool {
	var va, vb any
	if len(a) > 0 && stdjson.Unmarshal(a, &va) != nil {
		return false
	}
	if len(b) > 0 && stdjson.Unmarshal(b, &vb) != nil {
		return false
	}
	return deepEqual(va, vb)
}

// deepEqual compares decoded JSON values.
func deepEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !deepEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !deepEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

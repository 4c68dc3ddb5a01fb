// Package frontmatter reads the YAML frontmatter at the top of a markdown
// file (a skill's SKILL.md) and renders it as a JSON object.
package frontmatter

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

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
	var doc yaml.Node
	if err := yaml.Unmarshal(text[m[2]:m[3]], &doc); err != nil {
		return nil, nil, fmt.Errorf("the frontmatter is not valid YAML: %w", err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, errors.New("the frontmatter must be a YAML mapping of field names to values")
	}
	out := make(map[string]stdjson.RawMessage, len(root.Content)/2)
	conv := &converter{budget: nodeBudget(m[3] - m[2]), expanding: map[*yaml.Node]bool{}}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, err := key(root.Content[i], "")
		if err != nil {
			return nil, nil, err
		}
		if _, dup := out[k]; dup {
			return nil, nil, fmt.Errorf("frontmatter field %s appears twice", k)
		}
		v, err := conv.toJSON(root.Content[i+1], k)
		if err != nil {
			return nil, nil, err
		}
		raw, err := stdjson.Marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("frontmatter field %s: %w", k, err)
		}
		out[k] = raw
	}
	return out, text[m[1]:], nil
}

// key returns a mapping key, which must be a string to be a JSON member
// name; "<<", a merge key in YAML 1.1 only, is a string in YAML 1.2.
func key(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!merge") {
		return "", fmt.Errorf("frontmatter field %s: the mapping key %q is not a string, so it cannot be a JSON member name", path, n.Value)
	}
	return n.Value, nil
}

// nodeBudget is how many nodes the JSON form of a frontmatter of size
// bytes may have: more than the YAML could spell out without aliases, far
// fewer than aliases of aliases expand to ("billion laughs").
func nodeBudget(size int) int { return 4*size + 10000 }

// converter turns YAML nodes into JSON values, expanding aliases within a
// budget of nodes.
type converter struct {
	budget    int                 // nodes the rest of the conversion may make
	expanding map[*yaml.Node]bool // the anchored nodes whose aliases are being expanded
}

// toJSON converts a YAML node to a value encoding/json encodes as a YAML 1.2
// core-schema parser reads it: timestamps stay strings, floats must be
// finite, mapping keys must be strings and appear once. An alias is
// expanded, unless it lies inside the node it names or the expansion would
// exceed the budget.
func (c *converter) toJSON(n *yaml.Node, path string) (any, error) {
	if c.budget--; c.budget < 0 {
		return nil, fmt.Errorf("frontmatter field %s: the aliases expand to more values than the frontmatter could hold; write the values out", path)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if c.expanding[n.Alias] {
			return nil, fmt.Errorf("frontmatter field %s: the alias *%s lies inside the value it names, so it has no JSON form", path, n.Value)
		}
		c.expanding[n.Alias] = true
		defer delete(c.expanding, n.Alias)
		return c.toJSON(n.Alias, path)
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := key(n.Content[i], path)
			if err != nil {
				return nil, err
			}
			if _, dup := out[k]; dup {
				return nil, fmt.Errorf("frontmatter field %s.%s appears twice", path, k)
			}
			v, err := c.toJSON(n.Content[i+1], path+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, e := range n.Content {
			v, err := c.toJSON(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.ScalarNode:
		if tag := n.ShortTag(); tag == "!!str" || tag == "!!timestamp" {
			return n.Value, nil
		}
		if n.Style == 0 && leadingZeroInt.MatchString(n.Value) {
			return decimalOf(n.Value), nil
		}
		if tag := n.ShortTag(); n.Style == 0 && (tag == "!!int" || tag == "!!float") && !coreNumber.MatchString(n.Value) {
			return n.Value, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("frontmatter field %s: %w", path, err)
		}
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return nil, fmt.Errorf("frontmatter field %s: %v has no JSON form", path, f)
		}
		return v, nil
	}
	return nil, fmt.Errorf("frontmatter field %s: unsupported YAML node", path)
}

// leadingZeroInt matches a plain integer with a leading zero, such as 010,
// which YAML 1.1 (and go-yaml) reads as octal and the YAML 1.2 core schema,
// as JavaScript hosts parse it, as decimal.
var leadingZeroInt = regexp.MustCompile(`^[-+]?0[0-9]+$`)

// coreNumber matches the numbers of the YAML 1.2 core schema: decimal,
// 0o octal and 0x hexadecimal integers, floats, infinities and NaN. go-yaml
// also reads YAML 1.1 forms as numbers (1_000, 0b101, -0x1F), which YAML
// 1.2 reads as strings.
var coreNumber = regexp.MustCompile(`^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|` +
	`[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)

// decimalOf returns the decimal integer s (a leadingZeroInt) as a JSON
// number: its digits without the leading zeros or a plus sign.
func decimalOf(s string) stdjson.Number {
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		sign, s = strings.TrimPrefix(s[:1], "+"), s[1:]
	}
	digits := strings.TrimLeft(s, "0")
	if digits == "" {
		return "0"
	}
	return stdjson.Number(sign + digits)
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

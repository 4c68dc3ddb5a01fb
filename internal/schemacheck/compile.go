package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ErrUnsupported is wrapped by the error [Compile] returns for a schema that
// uses something outside the subset this package implements. The caller then
// validates with a general JSON Schema implementation.
var ErrUnsupported = errors.New("unsupported by schemacheck")

// A Validator is a JSON Schema compiled for validating raw JSON instances.
// It is safe for concurrent use.
type Validator struct {
	root *node     // nil: every instance is valid
	pool sync.Pool // of *state, so that validating allocates nothing
}

// kinds is a set of JSON Schema instance types.
type kinds uint8

const (
	kindNull kinds = 1 << iota
	kindBoolean
	kindObject
	kindArray
	kindNumber // a number that is not an integer
	kindInteger
	kindString
)

// typeKinds returns the instance types a "type" name admits, or 0 for a
// name JSON Schema does not define.
func typeKinds(name string) kinds {
	switch name {
	case "null":
		return kindNull
	case "boolean":
		return kindBoolean
	case "object":
		return kindObject
	case "array":
		return kindArray
	case "number":
		return kindNumber | kindInteger
	case "integer":
		return kindInteger
	case "string":
		return kindString
	}
	return 0
}

// String names an instance type as JSON Schema does.
func (k kinds) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBoolean:
		return "boolean"
	case kindObject:
		return "object"
	case kindArray:
		return "array"
	case kindNumber:
		return "number"
	case kindInteger:
		return "integer"
	case kindString:
		return "string"
	}
	return "unknown"
}

// node is one compiled schema. A nil *node is a schema that every instance
// satisfies. Bounds that are absent are -1 (counts) or have their has* flag
// unset (numbers).
type node struct {
	never bool // the schema false: no instance is valid

	types kinds  // the instance types "type" admits; 0 when absent
	want  string // "type" as messages quote it: `"string"` or `one of "null, array"`

	enum     []literal // with hasEnum: an instance must equal one of these
	hasEnum  bool
	konst    *literal // an instance must equal this
	compound bool     // enum or const holds an object or an array

	numeric                                      bool // any of the number keywords is present
	min, max, exMin, exMax, multipleOf           float64
	hasMin, hasMax, hasExMin, hasExMax, hasMulOf bool

	textual        bool // any of the string keywords is present
	minLen, maxLen int
	pattern        *regexp.Regexp

	items              *node
	minItems, maxItems int
	unique             bool

	members            []member       // properties, then required names that are not properties
	index              map[string]int // member by name, when there are many
	required           []string       // as the schema lists them, for messages
	requiredBit        []int          // the bit of each of required
	nRequired          int            // distinct required names
	additional         *node          // the schema of members that are not properties
	noAdditional       bool           // additionalProperties is false
	minProps, maxProps int
}

// member is a name an object schema knows: a property, a required name, or both.
type member struct {
	name     string
	schema   *node // meaningful when property
	property bool  // named in "properties"; otherwise additionalProperties applies
	bit      int   // the member's bit in the required set, or -1
}

// indexAbove is the number of members above which lookups use a map rather
// than a linear scan.
const indexAbove = 8

// The values of "$schema" that the general validator accepts.
const (
	draft7      = "http://json-schema.org/draft-07/schema#"
	draft7TLS   = "https://json-schema.org/draft-07/schema#"
	draft202012 = "https://json-schema.org/draft/2020-12/schema"
)

// unsupportedKeywords are the keywords of draft-07 and 2020-12 that constrain
// instances in ways this package does not implement.
var unsupportedKeywords = []string{
	"$ref", "$dynamicRef", "$defs", "definitions", "$anchor", "$dynamicAnchor", "$vocabulary",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
	"dependencies", "dependentRequired", "dependentSchemas",
	"prefixItems", "additionalItems", "contains", "minContains", "maxContains", "unevaluatedItems",
	"patternProperties", "propertyNames", "unevaluatedProperties", "contentSchema",
}

// supportedKeywords are the keywords Compile acts on or ignores as annotations.
var supportedKeywords = []string{
	"$schema", "$id", "$comment", "title", "description", "default", "examples",
	"deprecated", "readOnly", "writeOnly", "format", "contentEncoding", "contentMediaType",
	"type", "enum", "const",
	"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"minLength", "maxLength", "pattern",
	"items", "minItems", "maxItems", "uniqueItems",
	"properties", "required", "additionalProperties", "minProperties", "maxProperties",
}

// Compile compiles a JSON Schema (draft-07 or 2020-12) for validation. A
// schema outside the supported subset (see the package documentation) gets an
// error wrapping [ErrUnsupported] that names the keyword and where it is.
func Compile(schema []byte) (*Validator, error) {
	root, err := compile(jsontext.Value(schema), "", true)
	if err != nil {
		return nil, err
	}
	return &Validator{root: root}, nil
}

// unsupported returns an error wrapping ErrUnsupported.
func unsupported(at, keyword, why string) error {
	return fmt.Errorf("%w: %q at %q %s", ErrUnsupported, keyword, "#"+at, why)
}

// malformed returns an error for a keyword whose value is not what JSON Schema
// requires (or what this package accepts of it).
func malformed(at, keyword, why string) error {
	return fmt.Errorf("schemacheck: %q at %q %s", keyword, "#"+at, why)
}

// compile compiles the schema raw found at JSON Pointer at.
func compile(raw jsontext.Value, at string, root bool) (*node, error) {
	switch raw.Kind() {
	case 't':
		return nil, nil
	case 'f':
		return &node{never: true}, nil
	case '{':
	default:
		return nil, fmt.Errorf("schemacheck: the schema at %q is not an object or a boolean", "#"+at)
	}
	var keywords map[string]jsontext.Value
	if err := json.Unmarshal(raw, &keywords); err != nil {
		return nil, fmt.Errorf("schemacheck: the schema at %q: %w", "#"+at, err)
	}
	n := &node{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	var (
		properties map[string]jsontext.Value
		required   []string
		constrains bool
	)
	for _, key := range slices.Sorted(maps.Keys(keywords)) {
		v := keywords[key]
		if v.Kind() == 'n' && key != "const" && key != "default" &&
			(slices.Contains(supportedKeywords, key) || slices.Contains(unsupportedKeywords, key)) {
			return nil, unsupported(at, key, "is null")
		}
		if key != "$schema" && slices.Contains(supportedKeywords, key) {
			switch key {
			case "$id", "$comment", "title", "description", "default", "examples",
				"deprecated", "readOnly", "writeOnly", "format", "contentEncoding", "contentMediaType":
			default:
				constrains = true
			}
		}
		var err error
		switch key {
		case "$schema":
			var s string
			if err = json.Unmarshal(v, &s); err == nil && root && s != draft7 && s != draft7TLS && s != draft202012 {
				return nil, unsupported(at, key, "names a dialect other than draft-07 and 2020-12")
			}
		case "$id", "$comment", "title", "description", "format", "contentEncoding", "contentMediaType":
			err = json.Unmarshal(v, new(string))
		case "deprecated", "readOnly", "writeOnly":
			err = json.Unmarshal(v, new(bool))
		case "examples":
			err = json.Unmarshal(v, new([]any))
		case "default":
			err = json.Unmarshal(v, new(any))
		case "type":
			err = n.compileType(v)
		case "enum":
			var vals []jsontext.Value
			if err = json.Unmarshal(v, &vals); err == nil {
				n.hasEnum = true
				n.enum = make([]literal, len(vals))
				for i, e := range vals {
					if n.enum[i], err = newLiteral(e); err != nil {
						break
					}
					n.compound = n.compound || n.enum[i].compound()
				}
			}
		case "const":
			var l literal
			if l, err = newLiteral(v); err == nil {
				n.konst = &l
				n.compound = n.compound || l.compound()
			}
		case "multipleOf":
			if n.multipleOf, err = number(v); err == nil && !(n.multipleOf > 0) {
				err = errors.New("is not greater than 0")
			}
			n.hasMulOf = true
		case "minimum":
			n.min, err = number(v)
			n.hasMin = true
		case "maximum":
			n.max, err = number(v)
			n.hasMax = true
		case "exclusiveMinimum":
			n.exMin, err = number(v)
			n.hasExMin = true
		case "exclusiveMaximum":
			n.exMax, err = number(v)
			n.hasExMax = true
		case "minLength":
			n.minLen, err = count(v)
		case "maxLength":
			n.maxLen, err = count(v)
		case "pattern":
			var p string
			if err = json.Unmarshal(v, &p); err == nil {
				if n.pattern, err = regexp.Compile(p); err != nil {
					return nil, unsupported(at, key, "is not a regular expression Go's RE2 syntax accepts: "+err.Error())
				}
			}
		case "items":
			if v.Kind() == '[' {
				return nil, unsupported(at, key, "is an array of schemas (a tuple)")
			}
			n.items, err = compile(v, at+"/items", false)
			if err != nil {
				return nil, err
			}
		case "minItems":
			n.minItems, err = count(v)
		case "maxItems":
			n.maxItems, err = count(v)
		case "uniqueItems":
			err = json.Unmarshal(v, &n.unique)
		case "properties":
			err = json.Unmarshal(v, &properties)
		case "required":
			err = json.Unmarshal(v, &required)
		case "additionalProperties":
			n.additional, err = compile(v, at+"/additionalProperties", false)
			if err != nil {
				return nil, err
			}
			if n.additional != nil && n.additional.never {
				n.additional, n.noAdditional = nil, true
			}
		case "minProperties":
			n.minProps, err = count(v)
		case "maxProperties":
			n.maxProps, err = count(v)
		default:
			if slices.Contains(unsupportedKeywords, key) {
				return nil, unsupported(at, key, "is not implemented")
			}
			for _, k := range slices.Concat(supportedKeywords, unsupportedKeywords) {
				if strings.EqualFold(key, k) {
					return nil, unsupported(at, key, "differs from "+strconv.Quote(k)+" only in case")
				}
			}
			// A keyword no vocabulary defines is an annotation.
		}
		if err != nil {
			return nil, malformed(at, key, err.Error())
		}
	}
	if err := n.compileMembers(properties, required, at); err != nil {
		return nil, err
	}
	n.numeric = n.hasMin || n.hasMax || n.hasExMin || n.hasExMax || n.hasMulOf
	n.textual = n.minLen >= 0 || n.maxLen >= 0 || n.pattern != nil
	if !constrains {
		return nil, nil
	}
	return n, nil
}

// compileType compiles the "type" keyword: a name or an array of names.
func (n *node) compileType(v jsontext.Value) error {
	var names []string
	switch v.Kind() {
	case '"':
		var name string
		if err := json.Unmarshal(v, &name); err != nil {
			return err
		}
		names = []string{name}
		n.want = strconv.Quote(name)
	case '[':
		if err := json.Unmarshal(v, &names); err != nil {
			return err
		}
		if len(names) == 0 {
			return errors.New("is an empty array")
		}
		n.want = "one of " + strconv.Quote(strings.Join(names, ", "))
	default:
		return errors.New("is not a string or an array of strings")
	}
	for _, name := range names {
		k := typeKinds(name)
		if k == 0 {
			return fmt.Errorf("names %q, which is not a JSON Schema type", name)
		}
		n.types |= k
	}
	return nil
}

// compileMembers compiles "properties" and "required" into n's member table.
func (n *node) compileMembers(properties map[string]jsontext.Value, required []string, at string) error {
	for _, name := range slices.Sorted(maps.Keys(properties)) {
		s, err := compile(properties[name], at+"/properties/"+escapePointer(name), false)
		if err != nil {
			return err
		}
		n.members = append(n.members, member{name: name, schema: s, property: true, bit: -1})
	}
	for _, name := range required {
		i := slices.IndexFunc(n.members, func(m member) bool { return m.name == name })
		if i < 0 {
			i = len(n.members)
			n.members = append(n.members, member{name: name, bit: -1})
		}
		if n.members[i].bit < 0 {
			n.members[i].bit = n.nRequired
			n.nRequired++
		}
		n.required = append(n.required, name)
		n.requiredBit = append(n.requiredBit, n.members[i].bit)
	}
	if len(n.members) > indexAbove {
		n.index = make(map[string]int, len(n.members))
		for i, m := range n.members {
			n.index[m.name] = i
		}
	}
	return nil
}

// requiredWords is the number of 64-bit words a set of n's required names takes.
func (n *node) requiredWords() int {
	return (n.nRequired + 63) / 64
}

// lookup returns the index of the member named name (unquoted), or -1.
func (n *node) lookup(name []byte) int {
	if n.index != nil {
		if i, ok := n.index[string(name)]; ok {
			return i
		}
		return -1
	}
	for i := range n.members {
		if n.members[i].name == string(name) {
			return i
		}
	}
	return -1
}

// escapePointer escapes a member name as a JSON Pointer reference token.
func escapePointer(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// number decodes a keyword's number.
func number(v jsontext.Value) (float64, error) {
	if v.Kind() != '0' {
		return 0, errors.New("is not a number")
	}
	f, ok := parseNumber(v)
	if !ok {
		return 0, errors.New("is beyond the range of a 64-bit float")
	}
	return f, nil
}

// count decodes a keyword's non-negative integer (which may be written 2.0).
func count(v jsontext.Value) (int, error) {
	f, err := number(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, errors.New("is not a non-negative integer of at most 2³¹-1")
	}
	return int(f), nil
}

// parseNumber decodes a JSON number literal, reporting false if it is beyond
// the range of float64.
func parseNumber(v []byte) (float64, bool) {
	if f, ok := smallInteger(v); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// smallInteger decodes a JSON number literal that is an integer of at most
// 15 digits, and so exactly a float64, faster than strconv does.
func smallInteger(v []byte) (float64, bool) {
	if len(v) > 15 {
		return 0, false
	}
	digits, neg := v, len(v) > 0 && v[0] == '-'
	if neg {
		digits = v[1:]
	}
	var i int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	f := float64(i)
	if neg {
		f = -f
	}
	return f, true
}

// mayOverflow reports whether a JSON number literal could be beyond the
// range of float64: only one with an exponent or with more than 308 digits.
func mayOverflow(v []byte) bool {
	return len(v) > 308 || bytes.ContainsAny(v, "eE")
}

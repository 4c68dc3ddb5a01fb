package streamable

import (
	"encoding/base64"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ParamHeader binds one tool parameter to the Mcp-Param-{Name} HTTP header
// that mirrors it (SEP-2243): the tool's inputSchema marks the parameter's
// property with "x-mcp-header": Name.
type ParamHeader struct {
	// Path is the chain of "properties" keys from the schema root to the
	// parameter; the value sits at the same path in the call's arguments.
	Path []string
	// Name is the x-mcp-header value; the header is "Mcp-Param-" + Name.
	Name string
}

// Header returns the HTTP header name, "Mcp-Param-" + p.Name.
func (p ParamHeader) Header() string { return paramHeaderPrefix + p.Name }

// maxSafeInteger is the largest integer a header-mapped parameter may hold
// (2^53-1, the largest integer JavaScript represents exactly).
const maxSafeInteger = 1<<53 - 1

// ParamHeaders returns the x-mcp-header bindings of a tool's inputSchema,
// sorted by Name. It returns an error when an annotation breaks the rules
// of SEP-2243: the value must be a non-empty HTTP token, unique among the
// tool's annotations ignoring case, on a property of type string, integer
// or boolean that is reachable from the root through "properties" keys
// alone. A client must not offer such a tool over HTTP; a server must not
// define one.
func ParamHeaders(inputSchema stdjson.RawMessage) ([]ParamHeader, error) {
	if len(inputSchema) == 0 {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("the inputSchema is not valid JSON: %w", err)
	}
	var w schemaWalk
	if err := w.walk(root, nil, true); err != nil {
		return nil, err
	}
	sort.Slice(w.out, func(i, j int) bool { return w.out[i].Name < w.out[j].Name })
	return w.out, nil
}

// schemaWalk collects x-mcp-header annotations from a schema.
type schemaWalk struct {
	out  []ParamHeader
	seen map[string]string // lower-cased name → the path that claimed it
}

// instanceKeywords hold instance data rather than subschemas: an
// "x-mcp-header" member inside them is not an annotation.
var instanceKeywords = map[string]bool{"default": true, "const": true, "enum": true, "examples": true}

// walk visits a schema value. path is the properties chain leading to it
// and reachable reports whether that chain consists of properties keys only.
func (w *schemaWalk) walk(v any, path []string, reachable bool) error {
	switch s := v.(type) {
	case []any:
		for _, el := range s {
			if err := w.walk(el, path, false); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if ann, ok := s["x-mcp-header"]; ok {
			if err := w.annotate(s, ann, path, reachable); err != nil {
				return err
			}
		}
		for key, sub := range s {
			switch {
			case instanceKeywords[key] || key == "x-mcp-header":
			case key == "properties":
				props, ok := sub.(map[string]any)
				if !ok {
					continue
				}
				for name, ps := range props {
					if err := w.walk(ps, append(path[:len(path):len(path)], name), reachable); err != nil {
						return err
					}
				}
			default:
				if err := w.walk(sub, path, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// annotate checks and records one x-mcp-header annotation.
func (w *schemaWalk) annotate(prop map[string]any, ann any, path []string, reachable bool) error {
	where := "the schema root"
	if len(path) > 0 {
		where = fmt.Sprintf("property %q", strings.Join(path, "."))
	}
	name, ok := ann.(string)
	switch {
	case !ok:
		return fmt.Errorf("x-mcp-header on %s must be a string", where)
	case len(path) == 0 || !reachable:
		return fmt.Errorf("x-mcp-header %q on %s is not allowed: only properties reached through \"properties\" keys alone may be mirrored into headers", name, where)
	case !isToken(name):
		return fmt.Errorf("x-mcp-header %q on %s is not a valid HTTP header name token", name, where)
	}
	switch t, _ := prop["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		return fmt.Errorf("x-mcp-header %q on %s needs \"type\" string, integer or boolean, not %v", name, where, prop["type"])
	}
	lower := strings.ToLower(name)
	if prev, dup := w.seen[lower]; dup {
		return fmt.Errorf("x-mcp-header %q on %s repeats the header of property %q (names are compared ignoring case)", name, where, prev)
	}
	if w.seen == nil {
		w.seen = make(map[string]string)
	}
	w.seen[lower] = strings.Join(path, ".")
	w.out = append(w.out, ParamHeader{Path: path, Name: name})
	return nil
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Base64 sentinel around header values that are not plain ASCII.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// EncodeHeaderValue returns the header form of a string: the string itself
// when it is plain ASCII (printable, no leading or trailing space, not
// looking like the sentinel), otherwise "=?base64?…?=" around its base64.
func EncodeHeaderValue(s string) string {
	if isPlainHeaderValue(s) {
		return s
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix
}

// DecodeHeaderValue undoes EncodeHeaderValue. It fails when a sentinel
// value is not valid base64, or a plain value holds bytes outside printable
// ASCII.
func DecodeHeaderValue(v string) (string, error) {
	if strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) && len(v) >= len(base64Prefix)+len(base64Suffix) {
		b, err := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		if err != nil {
			return "", fmt.Errorf("the =?base64?…?= value is not valid base64: %v", err)
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Errorf("the value holds byte 0x%02x; values that are not printable ASCII must use =?base64?…?=", c)
		}
	}
	return v, nil
}

// isPlainHeaderValue reports whether s can travel as a header value as is.
func isPlainHeaderValue(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	if strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// errNoValue reports that the arguments hold no (or a null) value at a path.
var errNoValue = errors.New("no value")

// argumentAt returns the raw JSON value at path in the arguments object, or
// errNoValue when there is none or it is null.
func argumentAt(arguments jsontext.Value, path []string) (jsontext.Value, error) {
	cur := arguments
	for _, key := range path {
		if cur.Kind() != '{' {
			return nil, errNoValue
		}
		var obj map[string]jsontext.Value
		if err := json.Unmarshal(cur, &obj); err != nil {
			return nil, fmt.Errorf("the arguments are malformed: %w", err)
		}
		next, ok := obj[key]
		if !ok {
			return nil, errNoValue
		}
		cur = next
	}
	if len(cur) == 0 || cur.Kind() == 'n' {
		return nil, errNoValue
	}
	return cur, nil
}

// headerText returns the header text for an argument value (before the
// sentinel encoding): a string as is, an integer in decimal, a boolean as
// true or false. Other values cannot be mirrored.
func headerText(v jsontext.Value) (string, error) {
	switch v.Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		return s, nil
	case 't':
		return "true", nil
	case 'f':
		return "false", nil
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
			return "", fmt.Errorf("%s is not an integer within ±(2^53-1)", v)
		}
		return strconv.FormatInt(int64(f), 10), nil
	}
	return "", fmt.Errorf("a %s cannot be mirrored into a header; only strings, integers and booleans can", kindWord(v.Kind()))
}

// sameValue reports whether a decoded header value equals the body's value
// of an argument; numbers compare numerically (42 equals 42.0).
func sameValue(header string, body jsontext.Value) bool {
	if body.Kind() == '0' {
		h, err1 := strconv.ParseFloat(header, 64)
		b, err2 := strconv.ParseFloat(string(body), 64)
		return err1 == nil && err2 == nil && h == b
	}
	want, err := headerText(body)
	return err == nil && want == header
}

// kindWord names a JSON kind for messages.
func kindWord(k jsontext.Kind) string {
	switch k {
	case '{':
		return "JSON object"
	case '[':
		return "JSON array"
	case 'n':
		return "null"
	}
	return "JSON value"
}

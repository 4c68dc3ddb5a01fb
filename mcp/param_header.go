package mcp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-json-experiment/json"
)

// HeaderAnnotation is the inputSchema keyword that mirrors a tool parameter
// into an HTTP header (SEP-2243, 2026-07-28), and ParamHeaderPrefix begins
// the name of that header.
const (
	HeaderAnnotation  = "x-mcp-header"
	ParamHeaderPrefix = "Mcp-Param-"
)

// ParamHeader binds one tool parameter to the Mcp-Param-{Name} HTTP header
// that mirrors it (SEP-2243): the tool's inputSchema marks the parameter's
// property with "x-mcp-header": Name.
type ParamHeader struct {
	// Path is the chain of "properties" keys from the schema root to the
	// parameter; the value sits at the same path in the call's arguments.
	Path []string `json:"path,omitempty"`
	// Name is the x-mcp-header value; the header is "Mcp-Param-" + Name.
	Name string `json:"name"`
}

// Header returns the HTTP header name, "Mcp-Param-" + p.Name.
func (p ParamHeader) Header() string { return ParamHeaderPrefix + p.Name }

// ParamHeaders returns the x-mcp-header bindings of a tool's inputSchema,
// sorted by Name. It returns an error when an annotation breaks the rules
// of SEP-2243: the value must be a non-empty HTTP token, unique among the
// tool's annotations ignoring case, on a property of type string, integer
// or boolean that is reachable from the root through "properties" keys
// alone. A client must not offer such a tool over HTTP; a server must not
// define one.
func ParamHeaders(inputSchema []byte) ([]ParamHeader, error) {
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
		if ann, ok := s[HeaderAnnotation]; ok {
			if err := w.annotate(s, ann, path, reachable); err != nil {
				return err
			}
		}
		for key, sub := range s {
			switch {
			case instanceKeywords[key] || key == HeaderAnnotation:
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
		return fmt.Errorf("x-mcp-header on %s is not a string but %v", where, ann)
	case len(path) == 0 || !reachable:
		return fmt.Errorf("x-mcp-header %q on %s is not allowed: only properties reached through \"properties\" keys alone may be mirrored into headers", name, where)
	case !isToken(name):
		return fmt.Errorf("x-mcp-header %q on %s is not a valid HTTP header name token", name, where)
	}
	switch t, _ := prop["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		return fmt.Errorf("x-mcp-header %q on %s: the property's type is %v; only string, integer and boolean can be mirrored", name, where, prop["type"])
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

package client

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
)

// headerAnnotation is the inputSchema keyword that mirrors a tool parameter
// into an Mcp-Param-{Name} HTTP header (SEP-2243, 2026-07-28).
const headerAnnotation = "x-mcp-header"

// usableTools returns the tools of a tools/list page that a client may
// offer: on a modern session, a tool whose x-mcp-header annotations break
// the rules is left out, as the protocol requires of clients, with a
// warning naming the tool and the broken rule. Legacy versions define no
// such annotation, so their tools are all kept.
func (s *Session) usableTools(tools []mcp.Tool) []mcp.Tool {
	if !s.modern() {
		return tools
	}
	kept := tools[:0:0]
	for _, t := range tools {
		if err := checkHeaderAnnotations(t.InputSchema); err != nil {
			s.client.logger.Warn("client: leaving out a listed tool whose x-mcp-header annotations are invalid; the server must fix its inputSchema",
				"tool", t.Name, "problem", err)
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// checkHeaderAnnotations reports why the x-mcp-header annotations of an
// inputSchema are invalid, or nil when they are valid (or absent). Each
// annotation must be a non-empty HTTP token (RFC 9110 tchar: no spaces,
// colons, control or non-ASCII characters), unique among the tool's
// annotations ignoring case, on a property of type string, integer or
// boolean that the root reaches through "properties" keys alone.
func checkHeaderAnnotations(inputSchema []byte) error {
	if len(inputSchema) == 0 {
		return nil
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return fmt.Errorf("the inputSchema is not valid JSON: %w", err)
	}
	w := annotationWalk{seen: make(map[string]string)}
	return w.walk(root, nil, true)
}

// annotationWalk checks the annotations of one schema.
type annotationWalk struct {
	seen map[string]string // lower-cased header name → the property that has it
}

// holdsInstanceData reports whether a schema keyword holds instance data,
// not subschemas: an "x-mcp-header" member inside it is not an annotation.
func holdsInstanceData(keyword string) bool {
	switch keyword {
	case "default", "const", "enum", "examples":
		return true
	}
	return false
}

// walk visits a schema value; path is the chain of "properties" keys that
// reached it, and direct reports whether nothing but such keys did.
func (w *annotationWalk) walk(v any, path []string, direct bool) error {
	switch s := v.(type) {
	case []any:
		for _, el := range s {
			if err := w.walk(el, path, false); err != nil {
				return err
			}
		}
	case map[string]any:
		if ann, ok := s[headerAnnotation]; ok {
			if err := w.check(s, ann, path, direct); err != nil {
				return err
			}
		}
		for key, sub := range s {
			switch {
			case holdsInstanceData(key) || key == headerAnnotation:
			case key == "properties":
				props, _ := sub.(map[string]any)
				for name, prop := range props {
					if err := w.walk(prop, append(path[:len(path):len(path)], name), direct); err != nil {
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

// check checks one annotation on the schema prop.
func (w *annotationWalk) check(prop map[string]any, ann any, path []string, direct bool) error {
	where := "the schema root"
	if len(path) > 0 {
		where = fmt.Sprintf("property %q", strings.Join(path, "."))
	}
	name, ok := ann.(string)
	switch {
	case !ok:
		return fmt.Errorf("%s on %s is a JSON %T, not a string", headerAnnotation, where, ann)
	case name == "":
		return fmt.Errorf("%s on %s is empty", headerAnnotation, where)
	case len(path) == 0 || !direct:
		return fmt.Errorf("%s %q on %s: only properties reached through \"properties\" alone can be mirrored into headers", headerAnnotation, name, where)
	case !isToken(name):
		return fmt.Errorf("%s %q on %s is not an HTTP header name token (letters, digits and !#$%%&'*+-.^_`|~ only)", headerAnnotation, name, where)
	}
	switch t, _ := prop["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		return fmt.Errorf("%s %q on %s: the property's type is %v; only string, integer and boolean can be mirrored", headerAnnotation, name, where, prop["type"])
	}
	lower := strings.ToLower(name)
	if prev, dup := w.seen[lower]; dup {
		return fmt.Errorf("%s %q on %s repeats the header of property %q (header names ignore case)", headerAnnotation, name, where, prev)
	}
	w.seen[lower] = strings.Join(path, ".")
	return nil
}

// isToken reports whether s is an RFC 9110 token: one or more tchar.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

package server

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	// jsonschema-go infers JSON Schema from Go types (so a typed tool's
	// schemas come from its In and Out) and validates instances against JSON
	// Schema 2020-12 (and draft-07), the dialects MCP uses; it is maintained
	// alongside the official Go SDK and resolves no network $ref by default.
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/weftmcp/weft/internal/schemacheck"
)

// objectSchema is the input schema of a tool that takes any arguments object.
var objectSchema = stdjson.RawMessage(`{"type":"object"}`)

// compiledSchema is a JSON Schema resolved once at registration, ready to
// validate instances: with schemacheck when the schema is within its subset
// (one pass over the raw JSON, no allocation), else with jsonschema-go.
type compiledSchema struct {
	check    *schemacheck.Validator // nil: outside schemacheck's subset
	resolved *jsonschema.Resolved
}

// compileSchema resolves a raw JSON Schema. Remote $refs are not fetched:
// a schema that needs one is rejected.
func compileSchema(raw stdjson.RawMessage) (*compiledSchema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve the JSON Schema: %w", err)
	}
	// jsonschema-go stays the judge of which schemas register; schemacheck,
	// when it accepts the schema, judges instances exactly as it would.
	check, _ := schemacheck.Compile(raw)
	return &compiledSchema{check: check, resolved: rs}, nil
}

// inferSchema derives the JSON Schema of Go type t. It returns nil for types
// that constrain nothing (interfaces, such as any).
func inferSchema(t reflect.Type) (stdjson.RawMessage, error) {
	if t.Kind() == reflect.Interface {
		return nil, nil
	}
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema inferred from %s: %w", t, err)
	}
	return raw, nil
}

// validate checks a JSON instance (nil: the empty object) against the schema
// and describes the first problem, naming where in the instance it is.
func (c *compiledSchema) validate(raw []byte) error {
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if c.check != nil {
		return c.check.Validate(raw)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if err := c.resolved.Validate(v); err != nil {
		return errors.New(describeViolation(err.Error()))
	}
	return nil
}

// describeViolation rewrites a jsonschema validation error, which names
// schema locations ("validating /properties/a/properties/b: type: …"), so
// that it names the offending member of the instance ("a.b: type: …").
func describeViolation(msg string) string {
	msg = strings.TrimPrefix(msg, "validating root: ")
	var path string
	for strings.HasPrefix(msg, "validating ") {
		rest := strings.TrimPrefix(msg, "validating ")
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		path, msg = rest[:i], rest[i+2:]
	}
	var names []string
	parts := strings.Split(path, "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				names = append(names, parts[i+1])
				i++
			}
		case "items", "prefixItems":
			names = append(names, "[]")
		}
	}
	if len(names) == 0 {
		return msg
	}
	return strings.ReplaceAll(strings.Join(names, "."), ".[]", "[]") + ": " + msg
}

// schemaIsObject reports whether a raw schema's root has "type": "object".
func schemaIsObject(raw stdjson.RawMessage) bool {
	var root struct {
		Type jsontext.Value `json:"type"`
	}
	return json.Unmarshal(raw, &root) == nil && string(root.Type) == `"object"`
}

package cli

import (
	stdjson "encoding/json"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// argument is one key=value (or key:=json) argument.
type argument struct {
	key   string
	value string
	// json: written key:=value, the value is JSON as it stands.
	json bool
}

// parseArguments reads key=value and key:=json arguments.
func parseArguments(args []string) ([]argument, error) {
	out := make([]argument, 0, len(args))
	seen := map[string]bool{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		explicit := strings.HasSuffix(k, ":")
		k = strings.TrimSuffix(k, ":")
		if !ok || k == "" {
			return nil, usageError("argument %q is not key=value; write for example text=hello or seconds=3", a)
		}
		if seen[k] {
			return nil, usageError("argument %q is given twice", k)
		}
		seen[k] = true
		out = append(out, argument{k, v, explicit})
	}
	return out, nil
}

// jsonValue is the JSON value of an argument: the text itself when it is
// valid JSON (3, true, {"a":1}, "quoted"), else the text as a string.
func jsonValue(v string) jsontext.Value {
	if val := jsontext.Value(v); val.IsValid() {
		return val
	}
	return quote(v)
}

// toolArguments encodes key=value arguments as a tools/call arguments
// object, in the order given; nil when there are none. Each value is typed
// by the tool's input schema (which may be nil): a string property gets
// the text as it is, an integer, number or boolean property the text read
// as one, an object or array property the text as JSON; a property the
// schema does not type gets the text as JSON when it is valid JSON, else
// as a string. key:=json sends the JSON as it stands.
func toolArguments(args []string, schema stdjson.RawMessage) (stdjson.RawMessage, error) {
	kvs, err := parseArguments(args)
	if err != nil || len(kvs) == 0 {
		return nil, err
	}
	types := propertyTypes(schema)
	var b strings.Builder
	enc := jsontext.NewEncoder(&b)
	enc.WriteToken(jsontext.BeginObject)
	for _, kv := range kvs {
		v, err := typedValue(kv, types[kv.key])
		if err != nil {
			return nil, err
		}
		enc.WriteToken(jsontext.String(kv.key))
		enc.WriteValue(v)
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, usageError("encoding the arguments: %v", err)
	}
	return stdjson.RawMessage(strings.TrimSpace(b.String())), nil
}

// typedValue is the JSON value of one argument for a property of JSON
// Schema type typ ("" when the schema does not say).
func typedValue(kv argument, typ string) (jsontext.Value, error) {
	v := kv.value
	wrong := func(want string) error {
		return usageError("argument %s=%s: %s takes %s; to send other JSON, write %s:=JSON", kv.key, v, kv.key, want, kv.key)
	}
	switch {
	case kv.json:
		if val := jsontext.Value(v); val.IsValid() {
			return val, nil
		}
		return nil, usageError("argument %s:=%s is not valid JSON; for a string write %s=TEXT", kv.key, v, kv.key)
	case typ == "string":
		return quote(v), nil
	case typ == "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return nil, wrong("a whole number")
		}
		return jsontext.Value(v), nil
	case typ == "number":
		if val := jsontext.Value(v); val.IsValid() && val.Kind() == '0' {
			return val, nil
		}
		return nil, wrong("a number")
	case typ == "boolean":
		if v == "true" || v == "false" {
			return jsontext.Value(v), nil
		}
		return nil, wrong("true or false")
	case typ == "object" || typ == "array":
		if val := jsontext.Value(v); val.IsValid() && (val.Kind() == '{') == (typ == "object") && val.Kind() != '"' {
			return val, nil
		}
		return nil, wrong("a JSON " + typ)
	}
	return jsonValue(v), nil
}

// propertyTypes maps each argument of an input schema to its type (see
// schemaArgs).
func propertyTypes(schema stdjson.RawMessage) map[string]string {
	out := map[string]string{}
	for _, a := range schemaArgs(schema) {
		out[a.name] = a.typ
	}
	return out
}

// quote is the JSON string of s.
func quote(s string) jsontext.Value {
	b, _ := jsontext.AppendQuote(nil, s) // the text is valid UTF-8 or is replaced
	return b
}

// stringArguments reads key=value arguments as strings (prompt arguments):
// a value that is a JSON string is unquoted, anything else is taken as
// written.
func stringArguments(args []string) (map[string]string, error) {
	kvs, err := parseArguments(args)
	if err != nil || len(kvs) == 0 {
		return nil, err
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		out[kv.key] = kv.value
		if v := jsontext.Value(kv.value); v.IsValid() && v.Kind() == '"' {
			if s, err := jsontext.AppendUnquote(nil, v); err == nil {
				out[kv.key] = string(s)
			}
		}
	}
	return out, nil
}

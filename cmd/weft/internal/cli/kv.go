package cli

import (
	stdjson "encoding/json"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// argument is one key=value argument.
type argument struct {
	key   string
	value string
}

// parseArguments reads key=value arguments.
func parseArguments(args []string) ([]argument, error) {
	out := make([]argument, 0, len(args))
	seen := map[string]bool{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, usageError("argument %q is not key=value; write for example text=hello or seconds=3", a)
		}
		if seen[k] {
			return nil, usageError("argument %q is given twice", k)
		}
		seen[k] = true
		out = append(out, argument{k, v})
	}
	return out, nil
}

// jsonValue is the JSON value of an argument: the text itself when it is
// valid JSON (3, true, {"a":1}, "quoted"), else the text as a string.
func jsonValue(v string) jsontext.Value {
	if val := jsontext.Value(v); val.IsValid() {
		return val
	}
	b, _ := jsontext.AppendQuote(nil, v) // the text is valid UTF-8 or is replaced
	return b
}

// toolArguments encodes key=value arguments as a tools/call arguments
// object, in the order given; nil when there are none.
func toolArguments(args []string) (stdjson.RawMessage, error) {
	kvs, err := parseArguments(args)
	if err != nil || len(kvs) == 0 {
		return nil, err
	}
	var b strings.Builder
	enc := jsontext.NewEncoder(&b)
	enc.WriteToken(jsontext.BeginObject)
	for _, kv := range kvs {
		enc.WriteToken(jsontext.String(kv.key))
		enc.WriteValue(jsonValue(kv.value))
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, usageError("encoding the arguments: %v", err)
	}
	return stdjson.RawMessage(strings.TrimSpace(b.String())), nil
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

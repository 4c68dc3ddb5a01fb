// Package jsonkind names the kinds of JSON value for error messages, so
// every package says "a JSON array" the same way.
package jsonkind

import "github.com/go-json-experiment/json/jsontext"

// Name returns the word for a JSON value of kind k: "object", "array",
// "string", "number", "boolean" or "null", and "value" for anything else.
func Name(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}

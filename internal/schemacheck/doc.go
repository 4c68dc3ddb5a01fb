// Package schemacheck validates raw JSON against a JSON Schema compiled once,
// in one streaming pass over the instance's tokens with no allocation on success.
//
// It exists for speed on the path every tools/call takes: a general validator
// (github.com/google/jsonschema-go) must first decode the arguments into maps
// and then walk them; this package reads the arguments' bytes once, with a
// [github.com/go-json-experiment/json/jsontext.Decoder], checking each token against a compiled schema.
//
// # The subset
//
// [Compile] accepts the keywords that [github.com/google/jsonschema-go/jsonschema.ForType] emits for Go types
// and the common hand-written constraints:
//
//   - type (a name or an array of names: null, boolean, object, array, number,
//     integer, string), enum, const;
//   - minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf;
//   - minLength, maxLength (counted in Unicode code points), pattern;
//   - items (a single schema), minItems, maxItems, uniqueItems;
//   - properties, required, additionalProperties (a boolean or a schema),
//     minProperties, maxProperties;
//   - boolean schemas (true, false) wherever a schema may appear;
//   - annotations, which constrain nothing: $schema (draft-07 or 2020-12),
//     $id, $comment, title, description, default, examples, deprecated,
//     readOnly, writeOnly, format (an annotation, as in 2020-12 by default),
//     contentEncoding, contentMediaType, and keywords no vocabulary defines.
//
// Everything else a validator would have to act on ($ref, allOf, anyOf, oneOf,
// not, if/then/else, patternProperties, prefixItems, contains, dependent*,
// unevaluated*, …), a pattern Go's RE2 engine cannot compile (JSON Schema
// patterns are ECMA-262 regular expressions; an RE2-compilable pattern is
// matched with Go's [regexp], as the general validator does), and any keyword
// spelled like a known one in another case make [Compile] return an error
// wrapping [ErrUnsupported].
//
// # The fallback contract
//
// A caller compiles with this package first and, on any error, validates with
// a general JSON Schema implementation instead. So correctness never depends on
// the breadth of the subset: whatever [Compile] accepts, [Validator.Validate]
// judges exactly as jsonschema-go does after decoding the instance into Go
// values (differential tests and fuzz targets hold the two to that), and
// whatever it does not accept is judged by jsonschema-go itself. [Compile]
// checks the keywords it implements but is not a meta-schema validator: a
// schema's well-formedness is the general implementation's call.
//
// # Numbers
//
// Numbers are compared as float64, which is what the general validator sees
// after decoding into Go values and what a handler decoding into float64 sees:
// a literal that does not fit exactly (say 9007199254740993) is rounded to the
// nearest float64 first. 1.0 and 1e2 are integers. A literal beyond the range
// of float64 (1e400) is invalid wherever it appears, as it is when decoded into
// Go values.
package schemacheck

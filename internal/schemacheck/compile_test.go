package schemacheck

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every keyword jsonschema-go knows is classified here, as implemented,
// annotation or unsupported, so that none is silently ignored.
func TestCompile_EveryKeywordIsClassified(t *testing.T) {
	known := []string{"type", "items", "dependencies"} // marshaled by hand
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if name != "-" && name != "" {
			known = append(known, name)
		}
	}
	for _, k := range known {
		if !slices.Contains(supportedKeywords, k) && !slices.Contains(unsupportedKeywords, k) {
			t.Errorf("keyword %q is neither supported nor unsupported", k)
		}
	}
	if len(known) < 50 {
		t.Errorf("found only %d keywords in jsonschema.Schema", len(known))
	}
	for _, k := range unsupportedKeywords {
		_, err := Compile([]byte(`{"` + k + `":{}}`))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), strings.Trim(fmt.Sprintf("%q", k), `"`)) {
			t.Errorf("%s: %v, want ErrUnsupported naming it", k, err)
		}
	}
}

func TestCompile_Unsupported(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"anyOf":[{"type":"string"}]}`, `"anyOf" at "#" is not implemented`},
		{`{"properties":{"a":{"properties":{"b/c~":{"$ref":"#/$defs/x"}}}}}`, `"$ref" at "#/properties/a/properties/b~1c~0" is not implemented`},
		{`{"items":{"oneOf":[]}}`, `"oneOf" at "#/items" is not implemented`},
		{`{"additionalProperties":{"not":{}}}`, `"not" at "#/additionalProperties" is not implemented`},
		{`{"items":[{"type":"string"}]}`, `"items" at "#" is an array of schemas (a tuple)`},
		{`{"Type":"string"}`, `"Type" at "#" differs from "type" only in case`},
		{`{"PROPERTIES":{}}`, `"PROPERTIES" at "#" differs from "properties" only in case`},
		{`{"anyof":[]}`, `"anyof" at "#" differs from "anyOf" only in case`},
		{`{"type":null}`, `"type" at "#" is null`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, `"$schema" at "#" names a dialect other than draft-07 and 2020-12`},
		{`{"pattern":"(?=lookahead)"}`, `"pattern" at "#" is not a regular expression Go's RE2 syntax accepts`},
		{`{"pattern":"(a)\\1"}`, `"pattern" at "#" is not a regular expression Go's RE2 syntax accepts`},
		{`{"pattern":"\\u0041"}`, `"pattern" at "#" is not a regular expression Go's RE2 syntax accepts`},
	} {
		_, err := Compile([]byte(c.schema))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrUnsupported saying %s", c.schema, err, c.want)
		}
	}
}

func TestCompile_Malformed(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{``, `not an object or a boolean`},
		{`7`, `not an object or a boolean`},
		{`{"type":"string","type":"integer"}`, `duplicate`},
		{`{"type":"text"}`, `"type" at "#" names "text", which is not a JSON Schema type`},
		{`{"type":[]}`, `"type" at "#" is an empty array`},
		{`{"type":7}`, `"type" at "#" is not a string or an array of strings`},
		{`{"properties":{"a":{"minLength":-1}}}`, `"minLength" at "#/properties/a" is not a non-negative integer`},
		{`{"maxItems":2.5}`, `"maxItems" at "#" is not a non-negative integer`},
		{`{"maxProperties":4294967296}`, `"maxProperties" at "#" is not a non-negative integer`},
		{`{"minimum":"0"}`, `"minimum" at "#" is not a number`},
		{`{"maximum":1e400}`, `"maximum" at "#" is beyond the range of a 64-bit float`},
		{`{"multipleOf":0}`, `"multipleOf" at "#" is not greater than 0`},
		{`{"enum":{}}`, `"enum" at "#"`},
		{`{"const":1e400}`, `"const" at "#"`},
		{`{"required":["a",1]}`, `"required" at "#"`},
		{`{"uniqueItems":"yes"}`, `"uniqueItems" at "#"`},
		{`{"description":7}`, `"description" at "#"`},
		{`{"items":7}`, `not an object or a boolean`},
	} {
		_, err := Compile([]byte(c.schema))
		if err == nil || errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %s", c.schema, err, c.want)
		}
	}
}

func TestCompile_AcceptsForms(t *testing.T) {
	for _, schema := range []string{
		`true`, `false`, `{}`,
		`{"minLength":2.0,"maxItems":1e2}`,
		`{"const":null,"default":null}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"$schema":"https://json-schema.org/draft-07/schema#"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`,
		`{"properties":{"a":{"$schema":"nested dialects are not checked"}}}`,
		`{"x-vendor":null,"unknownKeyword":{"anyOf":"not checked"}}`,
		`{"pattern":"(?<name>x)\\p{Greek}"}`,
	} {
		if _, err := Compile([]byte(schema)); err != nil {
			t.Errorf("%s: %v", schema, err)
		}
	}
}

// A schema of annotations alone compiles to nothing to check.
func TestCompile_AnnotationsConstrainNothing(t *testing.T) {
	v, err := Compile([]byte(`{"title":"t","description":"d","default":{},"examples":[1],"format":"uri","$comment":"c",` +
		`"deprecated":true,"readOnly":true,"writeOnly":false,"contentEncoding":"base64","contentMediaType":"x/y","$id":"urn:x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.root != nil {
		t.Errorf("compiled to %+v, want nothing to check", v.root)
	}
}

package mcp

import (
	"reflect"
	"testing"
)

// regionSchema annotates three properties, one of them nested.
const regionSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"count":{"type":"integer","x-mcp-header":"Count"},
	"opts":{"type":"object","properties":{"flag":{"type":"boolean","x-mcp-header":"Flag"}}},
	"query":{"type":"string"}}}`

func TestParamHeadersFromSchema(t *testing.T) {
	got, err := ParamHeaders([]byte(regionSchema))
	if err != nil {
		t.Fatal(err)
	}
	want := []ParamHeader{
		{Path: []string{"count"}, Name: "Count"},
		{Path: []string{"opts", "flag"}, Name: "Flag"},
		{Path: []string{"region"}, Name: "Region"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if want[1].Header() != "Mcp-Param-Flag" {
		t.Errorf("Header() = %q", want[1].Header())
	}
}

func TestParamHeadersRejectsInvalidAnnotations(t *testing.T) {
	tests := map[string]string{
		"empty name":              `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"not a token":             `{"properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}`,
		"control character":       `{"properties":{"a":{"type":"string","x-mcp-header":"A\r\nB"}}}`,
		"not a string":            `{"properties":{"a":{"type":"string","x-mcp-header":7}}}`,
		"number type":             `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"object type":             `{"properties":{"a":{"type":"object","x-mcp-header":"A"}}}`,
		"no type":                 `{"properties":{"a":{"x-mcp-header":"A"}}}`,
		"duplicate ignoring case": `{"properties":{"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"SAME"}}}`,
		"on the root":             `{"type":"object","x-mcp-header":"Root"}`,
		"inside items":            `{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"inside oneOf":            `{"oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"behind $defs":            `{"$defs":{"d":{"type":"string","x-mcp-header":"A"}}}`,
		"not JSON":                `{`,
	}
	for name, schema := range tests {
		if _, err := ParamHeaders([]byte(schema)); err == nil {
			t.Errorf("%s: accepted %s", name, schema)
		}
	}
	// An x-mcp-header key inside instance data is not an annotation.
	ok := `{"properties":{"a":{"type":"object","default":{"x-mcp-header":"nope"}}}}`
	if b, err := ParamHeaders([]byte(ok)); err != nil || len(b) != 0 {
		t.Errorf("a default value holding x-mcp-header: %v, %v", b, err)
	}
}

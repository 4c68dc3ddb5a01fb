package schemacheck

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// check compiles schema and validates each instance, comparing the error's
// message with want ("" for valid).
func check(t *testing.T, schema string, cases []struct{ in, want string }) {
	t.Helper()
	v, err := Compile([]byte(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	for _, c := range cases {
		err := v.Validate([]byte(c.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("schema %s\ninstance %s\n got %q\nwant %q", schema, c.in, got, c.want)
		}
	}
}

type cases = []struct{ in, want string }

func TestValidate_Type(t *testing.T) {
	check(t, `{"type":"string"}`, cases{
		{`"x"`, ``},
		{`7`, `type: 7 has type "integer", want "string"`},
		{`7.5`, `type: 7.5 has type "number", want "string"`},
		{`null`, `type: null has type "null", want "string"`},
		{`true`, `type: true has type "boolean", want "string"`},
		{`{"a": [1, 2]}`, `type: {"a":[1,2]} has type "object", want "string"`},
		{`[]`, `type: [] has type "array", want "string"`},
	})
	check(t, `{"type":"integer"}`, cases{
		{`1`, ``}, {`1.0`, ``}, {`-0`, ``}, {`1e2`, ``}, {`1E+300`, ``}, {`12345678901234567890`, ``},
		{`1.5`, `type: 1.5 has type "number", want "integer"`},
		{`1e-2`, `type: 1e-2 has type "number", want "integer"`},
		{`"1"`, `type: 1 has type "string", want "integer"`},
	})
	check(t, `{"type":"number"}`, cases{{`1`, ``}, {`1.5`, ``}, {`"1"`, `type: 1 has type "string", want "number"`}})
	check(t, `{"type":"boolean"}`, cases{{`false`, ``}, {`0`, `type: 0 has type "integer", want "boolean"`}})
	check(t, `{"type":"null"}`, cases{{`null`, ``}, {`false`, `type: false has type "boolean", want "null"`}})
	check(t, `{"type":"object"}`, cases{{`{}`, ``}, {`[{}]`, `type: [{}] has type "array", want "object"`}})
	check(t, `{"type":"array"}`, cases{{`[]`, ``}, {`{}`, `type: {} has type "object", want "array"`}})
	check(t, `{"type":["null","array"]}`, cases{
		{`null`, ``}, {`[1]`, ``},
		{`"x"`, `type: x has type "string", want one of "null, array"`},
	})
	check(t, `{"type":["number","string"]}`, cases{{`1`, ``}, {`1.5`, ``}, {`""`, ``}, {`{}`, `type: {} has type "object", want one of "number, string"`}})
	check(t, `{"type":["integer"]}`, cases{{`2`, ``}, {`2.5`, `type: 2.5 has type "number", want one of "integer"`}})
}

func TestValidate_EnumAndConst(t *testing.T) {
	check(t, `{"enum":["red","green",1,null,true,{"a":[1,2]},[1,"x"]]}`, cases{
		{`"red"`, ``}, {`"gr\u0065en"`, ``}, {`1.0`, ``}, {`null`, ``}, {`true`, ``},
		{`{ "a" : [1.0, 2e0] }`, ``}, {`[1,"x"]`, ``},
		{`"blue"`, `enum: blue does not equal any of: ["red", "green", 1, null, true, {"a":[1,2]}, [1,"x"]]`},
		{`false`, `enum: false does not equal any of: ["red", "green", 1, null, true, {"a":[1,2]}, [1,"x"]]`},
		{`{"a":[2,1]}`, `enum: {"a":[2,1]} does not equal any of: ["red", "green", 1, null, true, {"a":[1,2]}, [1,"x"]]`},
		{`["x",1]`, `enum: ["x",1] does not equal any of: ["red", "green", 1, null, true, {"a":[1,2]}, [1,"x"]]`},
	})
	check(t, `{"enum":[]}`, cases{{`1`, `enum: 1 does not equal any of: []`}})
	check(t, `{"enum":["a"]}`, cases{{`{}`, `enum: {} does not equal any of: ["a"]`}, {`[]`, `enum: [] does not equal any of: ["a"]`}})
	check(t, `{"const":{"b":2,"a":[1.0,{"c":null}]}}`, cases{
		{`{"a":[1,{"c":null}],"b":2}`, ``},
		{`{"a":[1,{"c":null}],"b":2,"d":0}`, `const: {"a":[1,{"c":null}],"b":2,"d":0} does not equal {"b":2,"a":[1.0,{"c":null}]}`},
		{`[]`, `const: [] does not equal {"b":2,"a":[1.0,{"c":null}]}`},
	})
	check(t, `{"const":0}`, cases{{`-0`, ``}, {`0.0`, ``}, {`1e-400`, ``}, {`false`, `const: false does not equal 0`}})
	check(t, `{"const":null}`, cases{{`null`, ``}, {`0`, `const: 0 does not equal null`}})
	check(t, `{"const":"x"}`, cases{{`"x"`, ``}, {`"y"`, `const: y does not equal "x"`}})
	check(t, `{"const":true}`, cases{{`true`, ``}, {`false`, `const: false does not equal true`}})
}

func TestValidate_Numbers(t *testing.T) {
	check(t, `{"minimum":1,"maximum":255}`, cases{
		{`1`, ``}, {`255`, ``}, {`"not a number"`, ``},
		{`0.5`, `minimum: 0.5 is less than 1`},
		{`256`, `maximum: 256 is greater than 255`},
	})
	check(t, `{"exclusiveMinimum":0,"exclusiveMaximum":1e3}`, cases{
		{`0.001`, ``},
		{`0`, `exclusiveMinimum: 0 is less than or equal to 0`},
		{`1000`, `exclusiveMaximum: 1000 is greater than or equal to 1000`},
	})
	check(t, `{"multipleOf":0.5}`, cases{{`1.5`, ``}, {`-2`, ``}, {`1.25`, `multipleOf: 1.25 is not a multiple of 0.5`}})
	check(t, `{"maximum":9007199254740992}`, cases{
		{`9007199254740993`, ``}, // rounds to 2⁵³, as float64
		{`9007199254740994`, `maximum: 9007199254740994 is greater than 9007199254740992`},
	})
	check(t, `{"properties":{"n":true}}`, cases{
		{`{"n":1e308}`, ``},
		{`{"n":1e400}`, `n: number 1e400 is beyond the range of a 64-bit float`},
		{`{"n":[{"m":-1E+309}]}`, `n[0].m: number -1E+309 is beyond the range of a 64-bit float`},
		{`{"x":1e400}`, `x: number 1e400 is beyond the range of a 64-bit float`},
	})
	check(t, `{"type":"number"}`, cases{{`1e400`, `number 1e400 is beyond the range of a 64-bit float`}})
}

func TestValidate_Strings(t *testing.T) {
	check(t, `{"minLength":2,"maxLength":3}`, cases{
		{`"ab"`, ``}, {`"héé"`, ``}, {`"\u00e9\u00e9"`, ``}, {`"😀😀"`, ``}, {`7`, ``},
		{`"a"`, `minLength: "a" contains 1 Unicode code points, fewer than 2`},
		{`"abcd"`, `maxLength: "abcd" contains 4 Unicode code points, more than 3`},
		{`"a\"\n\t"`, `maxLength: "a\"\n\t" contains 4 Unicode code points, more than 3`},
	})
	check(t, `{"pattern":"^[a-z]+\\d$"}`, cases{
		{`"abc1"`, ``}, {`"\u0061\u0031"`, ``}, {`1`, ``},
		{`"ABC1"`, `pattern: "ABC1" does not match regular expression "^[a-z]+\\d$"`},
	})
	check(t, `{"pattern":"b"}`, cases{{`"abc"`, ``}, {`"ac"`, `pattern: "ac" does not match regular expression "b"`}})
	long := `"` + strings.Repeat("é", 100) + `"`
	check(t, `{"maxLength":99}`, cases{
		{long, `maxLength: "` + strings.Repeat("é", 40) + `…" contains 100 Unicode code points, more than 99`},
	})
	check(t, `{"format":"email"}`, cases{{`"not an email"`, ``}})
}

func TestValidate_Arrays(t *testing.T) {
	check(t, `{"items":{"type":"string"},"minItems":1,"maxItems":2}`, cases{
		{`["a"]`, ``}, {`["a","b"]`, ``}, {`{}`, ``},
		{`[]`, `minItems: array length 0 is less than 1`},
		{`["a","b","c"]`, `maxItems: array length 3 is greater than 2`},
		{`["a",2]`, `[1]: type: 2 has type "integer", want "string"`},
	})
	check(t, `{"uniqueItems":true}`, cases{
		{`[1,"1",[1],{"a":1},null,true]`, ``}, {`[]`, ``},
		{`[1,2,1.0]`, `uniqueItems: array items 0 and 2 are equal`},
		{`[{"a":1,"b":[2]},{"b":[2.0],"a":1}]`, `uniqueItems: array items 0 and 1 are equal`},
		{`["\u0061","a"]`, `uniqueItems: array items 0 and 1 are equal`},
		{`[0,-0]`, `uniqueItems: array items 0 and 1 are equal`},
	})
	check(t, `{"items":false}`, cases{{`[]`, ``}, {`[1]`, `[0]: 1 is not allowed: the schema is false`}})
	check(t, `{"items":{"items":{"items":{"minimum":0}}}}`, cases{
		{`[[[0]],[[1,2]]]`, ``},
		{`[[[0]],[[1,-2]]]`, `[1][0][1]: minimum: -2 is less than 0`},
	})
}

func TestValidate_Objects(t *testing.T) {
	schema := `{"properties":{"a":{"type":"string"},"b":true,"c":false},"required":["a","d"],` +
		`"additionalProperties":{"type":"integer"},"minProperties":2,"maxProperties":3}`
	check(t, schema, cases{
		{`{"a":"x","d":1}`, ``},
		{`{"a":"x","b":{"any":[]},"d":5}`, ``},
		{`[]`, ``},
		{`{"a":"x","d":"y"}`, `d: type: y has type "string", want "integer"`},
		{`{"a":"x","c":null,"d":1}`, `c: null is not allowed: the schema is false`},
		{`{"a":"x"}`, `minProperties: object has 1 properties, less than 2`},
		{`{"a":"x","d":1,"e":1,"f":1}`, `maxProperties: object has 4 properties, greater than 3`},
		{`{"b":1,"e":2}`, `required: missing properties: ["a" "d"]`},
	})
	check(t, `{"properties":{"a":true},"required":["b"],"additionalProperties":false}`, cases{
		{`{"b":1}`, `unexpected additional properties ["b"]`},
		{`{"a":1,"x":1,"y":{"z":1}}`, `unexpected additional properties ["x" "y"]`},
	})
	check(t, `{"additionalProperties":{"additionalProperties":{"maxLength":1}}}`, cases{
		{`{"a":{"b":"c"}}`, ``},
		{`{"a":{"b":"cd"}}`, `a.b: maxLength: "cd" contains 2 Unicode code points, more than 1`},
	})
	check(t, `{"required":["a","a"]}`, cases{{`{}`, `required: missing properties: ["a" "a"]`}, {`{"a":0}`, ``}})
}

func TestValidate_ManyMembers(t *testing.T) {
	schema, full := many(70)
	v, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	if v.root.index == nil || v.root.requiredWords() != 2 {
		t.Fatalf("70 members: index %v, %d words of required bits; the test misses the map and multi-word paths", v.root.index != nil, v.root.requiredWords())
	}
	if err := v.Validate([]byte(full)); err != nil {
		t.Errorf("all members present: %v", err)
	}
	for _, drop := range []string{`"p0":0,`, `"p63":63,`, `"p64":64,`, `,"p69":69`} {
		in := strings.Replace(full, drop, "", 1)
		name := strings.Trim(strings.Split(strings.Trim(drop, ","), ":")[0], `"`)
		if err := v.Validate([]byte(in)); err == nil || err.Error() != `required: missing properties: ["`+name+`"]` {
			t.Errorf("without %s: %v", name, err)
		}
	}
	if err := v.Validate([]byte(strings.Replace(full, `"p68":68`, `"p68":"x"`, 1))); err == nil || !strings.HasPrefix(err.Error(), "p68: type:") {
		t.Errorf("a bad value of p68: %v", err)
	}
	if err := v.Validate([]byte(strings.Replace(full, `"p68":68`, `"p70":68`, 1))); err == nil || err.Error() != `unexpected additional properties ["p70"]` {
		t.Errorf("an unknown member: %v", err)
	}
}

func TestValidate_BooleanSchemas(t *testing.T) {
	check(t, `true`, cases{{`{"a":[1,{"b":null}]}`, ``}, {`{"a":1e400}`, `a: number 1e400 is beyond the range of a 64-bit float`}})
	check(t, `false`, cases{
		{`1`, `1 is not allowed: the schema is false`},
		{`{"a":1}`, `{"a":1} is not allowed: the schema is false`},
		{`[]`, `[] is not allowed: the schema is false`},
	})
	check(t, `{"description":"annotations only","x-unknown":{"type":"string"}}`, cases{{`7`, ``}})
}

func TestValidate_Locations(t *testing.T) {
	schema := `{"properties":{
		"author":{"properties":{"name":{"type":"string"}}},
		"tags":{"items":{"type":"string"}},
		"grid":{"items":{"items":{"properties":{"v":{"type":"integer"}}}}},
		"a.b":{"type":"string"},"":{"type":"string"},"sp ace":{"type":"string"},"é\"":{"type":"string"}}}`
	check(t, schema, cases{
		{`{"author":{"name":7}}`, `author.name: type: 7 has type "integer", want "string"`},
		{`{"tags":["a","b",3]}`, `tags[2]: type: 3 has type "integer", want "string"`},
		{`{"grid":[[],[{"v":1},{"v":1.5}]]}`, `grid[1][1].v: type: 1.5 has type "number", want "integer"`},
		{`{"a.b":1}`, `["a.b"]: type: 1 has type "integer", want "string"`},
		{`{"":1}`, `[""]: type: 1 has type "integer", want "string"`},
		{`{"sp ace":1}`, `["sp ace"]: type: 1 has type "integer", want "string"`},
		{`{"\u00e9\"":1}`, `["é\""]: type: 1 has type "integer", want "string"`},
		{`{"author":{"na\u006de":7}}`, `author.name: type: 7 has type "integer", want "string"`},
	})
}

func TestValidate_NotJSON(t *testing.T) {
	v, err := Compile([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{``, ` `, `{`, `{"a":"x"`, `{"a":"x",}`, `{"a":1,}`, `{"a":"x","a":"y"}`,
		`"\ud800"`, "\"\xff\"", `{} {}`, `{} x`, `nul`, `[1e400,`, `{"a":1} trailing`} {
		err := v.Validate([]byte(in))
		if !errors.Is(err, errSyntax) || !strings.HasPrefix(err.Error(), "not valid JSON: ") {
			t.Errorf("%q: %v, want an error for malformed JSON", in, err)
		}
	}
	if err := v.Validate([]byte(" \t\r\n{\"a\" : \"x\" } \n")); err != nil {
		t.Errorf("whitespace: %v", err)
	}
}

// The server's tests assert these messages; they must survive the switch
// from jsonschema-go.
func TestValidate_ServerMessages(t *testing.T) {
	book := `{"type":"object","properties":{"title":{"type":"string"},"pages":{"type":"integer"},` +
		`"author":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false},` +
		`"tags":{"type":["null","array"],"items":{"type":"string"}}},"required":["title","author"],"additionalProperties":false}`
	check(t, book, cases{
		{`{"title":"t"}`, `required: missing properties: ["author"]`},
		{`{"title":"t","author":{"name":7}}`, `author.name: type: 7 has type "integer", want "string"`},
		{`{"title":"t","author":{"name":"a"},"tags":[1]}`, `tags[0]: type: 1 has type "integer", want "string"`},
		{`{"title":"t","author":{"name":"a"},"extra":1}`, `unexpected additional properties ["extra"]`},
		{`{"title":"t","author":{"name":"a"},"pages":"x"}`, `pages: type: x has type "string", want "integer"`},
		{`{"title":"Go","author":{"name":"Rob"},"pages":3}`, ``},
	})
	check(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`,
		cases{{`{}`, `required: missing properties: ["text"]`}})
}

func TestValidate_Concurrent(t *testing.T) {
	v, err := Compile([]byte(`{"properties":{"a":{"items":{"type":"integer"}}},"required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				good, bad := `{"a":[1,2,3]}`, `{"a":[1,"x"]}`
				if (g+i)%2 == 0 {
					if err := v.Validate([]byte(good)); err != nil {
						t.Errorf("%s: %v", good, err)
					}
				} else if err := v.Validate([]byte(bad)); err == nil || err.Error() != `a[1]: type: x has type "string", want "integer"` {
					t.Errorf("%s: %v", bad, err)
				}
			}
		})
	}
	wg.Wait()
}

package schemacheck

import (
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// The differential tests hold this package to jsonschema-go, validating as
// the server did before it: decode the instance into Go values, then
// validate them.

// resolve compiles a schema with jsonschema-go as the server does.
func resolve(schema []byte) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// referenceValidate validates an instance with jsonschema-go as the server does.
func referenceValidate(rs *jsonschema.Resolved, instance []byte) error {
	var v any
	if err := json.Unmarshal(instance, &v); err != nil {
		return err
	}
	return rs.Validate(v)
}

// Go types whose inferred schemas make up part of the corpus.
type (
	address struct {
		Street string  `json:"street"`
		City   string  `json:"city" jsonschema:"the city, or town"`
		Zip    *string `json:"zip,omitempty"`
	}
	base struct {
		ID      int64  `json:"id"`
		Comment string `json:"comment,omitempty"`
	}
	person struct {
		base
		Name    string                `json:"name"`
		Age     int                   `json:"age,omitempty"`
		Small   int8                  `json:"small,omitempty"`
		Byte    uint8                 `json:"byte,omitempty"`
		Short   int16                 `json:"short,omitempty"`
		UShort  uint16                `json:"ushort,omitempty"`
		Int32   int32                 `json:"int32,omitempty"`
		Uint32  uint32                `json:"uint32,omitempty"`
		Uint    uint                  `json:"uint,omitempty"`
		Score   float64               `json:"score,omitempty"`
		Ratio   float32               `json:"ratio,omitzero"`
		Admin   bool                  `json:"admin,omitempty"`
		Tags    []string              `json:"tags,omitempty"`
		Pair    [2]int                `json:"pair,omitzero"`
		Home    *address              `json:"home,omitempty"`
		Work    address               `json:"work"`
		Labels  map[string]string     `json:"labels,omitempty"`
		Extra   any                   `json:"extra,omitempty"`
		When    time.Time             `json:"when,omitzero"`
		Matrix  [][]float64           `json:"matrix,omitempty"`
		Offices map[string][]*address `json:"offices,omitempty"`
		Level   slog.Level            `json:"level,omitzero"`
		Big     *big.Int              `json:"big,omitempty"`
		Ignored string                `json:"-"`
		//lint:ignore SA5008 a field named "-" is a case the schema generator must get right
		Dash  string `json:"-,omitempty"`
		NoTag string
		Flags *[]*bool `json:"flags,omitempty"`
		//lint:ignore U1000 an unexported field, which the schema must leave out
		internal int
	}
	pointers struct {
		S *string  `json:"s"`
		I *int     `json:"i"`
		F *float64 `json:"f"`
		B *bool    `json:"b"`
		A *any     `json:"a"`
	}
	echoArgs struct {
		Text string `json:"text" jsonschema:"what to echo"`
	}
	bookArgs struct {
		Title  string `json:"title"`
		Pages  int    `json:"pages,omitempty"`
		Author struct {
			Name string `json:"name"`
		} `json:"author"`
		Tags []string `json:"tags,omitempty"`
	}
)

// inferredTypes are the Go types whose schemas jsonschema.ForType infers for
// the corpus, with instances of each, valid or not, to mutate.
var inferredTypes = []struct {
	t     reflect.Type
	seeds []string
}{
	{reflect.TypeFor[echoArgs](), []string{`{"text":"hi"}`}},
	{reflect.TypeFor[bookArgs](), []string{
		`{"title":"Go","pages":3,"author":{"name":"Rob"},"tags":["a","b"]}`,
		`{"title":"Go","author":{"name":"Rob"},"tags":null}`,
	}},
	{reflect.TypeFor[person](), []string{
		`{"id":1,"name":"Ann","work":{"street":"Main","city":"X"},"labels":{"a":"b"},"Dash":"-","-":"d","NoTag":""}`,
		`{"id":-1,"comment":"c","name":"Ann","age":30,"small":-128,"byte":255,"short":-32768,"ushort":65535,` +
			`"int32":2147483647,"uint32":4294967295,"uint":0,"score":1.5,"ratio":0.25,"admin":true,"tags":["x"],` +
			`"pair":[1,2],"home":{"street":"s","city":"c","zip":"z"},"work":{"street":"Main","city":"X","zip":null},` +
			`"extra":{"any":[1,"two",null]},"when":"2025-01-02T03:04:05Z","matrix":[[1,2.5],[]],` +
			`"offices":{"hq":[{"street":"a","city":"b"},null]},"level":"INFO","big":"123","-":"d","NoTag":"n","flags":[true,null]}`,
	}},
	{reflect.TypeFor[*pointers](), []string{
		`{"s":null,"i":null,"f":null,"b":null,"a":null}`,
		`{"s":"x","i":1,"f":1.5,"b":false,"a":{"k":[]}}`,
	}},
	{reflect.TypeFor[map[string]int](), []string{`{"a":1,"b":-2}`, `{}`}},
	{reflect.TypeFor[map[string]any](), []string{`{"a":{"b":[1e3]}}`}},
	{reflect.TypeFor[[]*address](), []string{`[{"street":"a","city":"b"},null]`, `null`}},
	{reflect.TypeFor[[3]string](), []string{`["a","b","c"]`}},
	{reflect.TypeFor[struct{}](), []string{`{}`}},
	{reflect.TypeFor[uint16](), []string{`65535`}},
	{reflect.TypeFor[*int8](), []string{`-128`, `null`}},
}

// many returns a schema with n required integer properties p0, p1, …, and
// an instance that has them all.
func many(n int) (schema, instance string) {
	var props, req, members []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"integer"}`, i))
		req = append(req, fmt.Sprintf(`"p%d"`, i))
		members = append(members, fmt.Sprintf(`"p%d":%d`, i, i))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") +
			`],"additionalProperties":false}`,
		`{` + strings.Join(members, ",") + `}`
}

// handWritten are schemas using every supported keyword, with instances to
// mutate.
var handWritten = []struct{ schema, seeds string }{
	{`{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-zé]+$"}`, `["ab","héllo","abcdef","a","AB","\u00e9\u00e9"]`},
	{`{"type":"string","pattern":"\\d{3}"}`, `["a123b","12","\u0031\u0032\u0033"]`},
	{`{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":100,"multipleOf":5}`, `[5,0,100,95,7,5.0,50e0]`},
	{`{"type":"number","multipleOf":0.5,"minimum":-2.5,"maximum":1e3}`, `[-2.5,1000,1000.5,0.25,-3,1.5]`},
	{`{"multipleOf":0.01}`, `[0.07,1.23,1.005,"x"]`},
	{`{"minimum":1.5,"maximum":1.5}`, `[1.5,1.4999999999999999,1.5000000000000002,"x",true]`},
	{`{"maximum":9007199254740992}`, `[9007199254740992,9007199254740993,9007199254740994]`},
	{`{"enum":["red","green",1,1.5,null,true,{"a":[1,2]},[1,"x"]]}`, `["red",1.0,1e0,{"a":[1.0,2]},[1,"x"],[1],{"a":[2,1]},false,"Red"]`},
	{`{"enum":[]}`, `[1]`},
	{`{"type":"string","enum":["a","b\"",""]}`, `["a","b\u0022",""]`},
	{`{"const":{"b":2,"a":[1.0,{"c":null}]}}`, `[{"a":[1,{"c":null}],"b":2.0},{"a":[1,{"c":null}],"b":2,"d":1},{"a":[1,{}],"b":2}]`},
	{`{"const":"x"}`, `["x","y"]`},
	{`{"const":null}`, `[null,0,false]`},
	{`{"const":0}`, `[0,-0,0.0,1e-400,false,null]`},
	{`{"const":false}`, `[false,true,0]`},
	{`{"type":"array","items":{"type":"integer","minimum":0},"minItems":1,"maxItems":3,"uniqueItems":true}`, `[[1],[1,2,3],[1,2,3,4],[],[1,1],[1,1.0],[0,-0],[-1]]`},
	{`{"type":"array","uniqueItems":true}`, `[[{"a":1,"b":2},{"b":2,"a":1}],[[1],[1.0]],["a","\u0061"],[null,false,0,"",[],{}],[1,"1"]]`},
	{`{"items":false}`, `[[],[1],{}]`},
	{`{"type":"array","items":{"type":"array","items":{"type":["string","null"]}}}`, `[[["a",null],[]],[[1]]]`},
	{`{"type":"object","properties":{"a":{"type":"string"},"b":true,"c":false},"required":["a","d"],` +
		`"additionalProperties":{"type":"integer"},"minProperties":2,"maxProperties":4}`,
		`[{"a":"x","d":1},{"a":"x","b":{},"d":5,"e":6},{"a":"x","c":1,"d":1},{"a":"x","d":"y"},{"a":"x"},{"a":"x","d":1,"e":1,"f":1,"g":1}]`},
	{`{"required":["a"]}`, `[{"a":null},{},[],"a"]`},
	{`{"type":["string","integer","null"],"minLength":1,"maximum":5}`, `["a","",5,6,5.5,null,true,{}]`},
	{`{"type":"number"}`, `[1,1.5,-0,1e308,"1"]`},
	{`{"title":"x","description":"y","default":1,"examples":[1],"format":"email","$comment":"c","deprecated":true,` +
		`"readOnly":false,"writeOnly":false,"contentEncoding":"base64","contentMediaType":"text/plain","$id":"https://example.com/s",` +
		`"x-custom":{"anything":1},"$schema":"https://json-schema.org/draft/2020-12/schema"}`, `["not an email",1,null]`},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","format":"int32"}},"required":["n"]}`,
		`[{"n":1},{"n":"1"},{}]`},
	{`{"$schema":"https://json-schema.org/draft-07/schema#","type":"array","items":{"type":"string"}}`, `[["a"],[1]]`},
	{`true`, `[1,{"a":[null]}]`},
	{`false`, `[1,{},[],null]`},
	{`{}`, `[1,{"a":[null]}]`},
	{`{"not-a-keyword":{"type":"string"}}`, `[1]`},
	{`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},` +
		`"tags":{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}},"required":["id"],"additionalProperties":false}}}}`,
		`[{"list":[{"id":1,"tags":["a","b"]},{"id":2}]},{"list":[{"id":1,"tags":["a","a"]}]},{"list":[{"tags":[]}]}]`},
	{`{"type":"object","properties":{"a\"b":{"type":"string"},"é":{"type":"integer"},"":{"type":"null"},"x.y":{"const":1}},` +
		`"required":["a\"b"],"additionalProperties":false}`,
		`[{"a\u0022b":"x","\u00e9":1,"":null,"x.y":1},{"a\"b":1},{"é":"x","a\"b":"y"},{"\u00e8":1,"a\"b":"y"}]`},
	{`{"type":"object","minProperties":1,"maxProperties":1}`, `[{"a":1},{},{"a":1,"b":2},[]]`},
	{`{"type":"object","additionalProperties":{"type":"object","additionalProperties":{"type":"string","maxLength":1}}}`,
		`[{"a":{"b":"c"}},{"a":{"b":"cd"}},{"a":1}]`},
	{`{"properties":{"x":{"minLength":1,"minimum":1,"minItems":1,"minProperties":1}}}`, `[{"x":""},{"x":0},{"x":[]},{"x":{}},{"x":null},{"x":"a"}]`},
}

// pool is a spread of JSON values, valid and not, tried against every schema.
var pool = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `1.5`, `-1`, `1e2`, `1E+2`, `-1e-2`, `1e400`, `-1e400`, `1e-400`,
	`9007199254740993`, `123456789012345678901234567890`, `0.1`, `255`, `256`, `-129`, `4294967296`,
	`""`, `"a"`, `"abc"`, `"héllo"`, `"\u00e9"`, `"ab\"c"`, `"\ud83d\ude00"`, `"2025-01-02T03:04:05Z"`,
	`[]`, `[1,2,3]`, `[1,1]`, `[1,1.0]`, `[{"a":1},{"a":1.0}]`, `[null]`, `[[]]`, `["a","b"]`,
	`{}`, `{"a":"x"}`, `{"a":1}`, `{"text":"hi"}`, `{"text":1}`, `{"a":[1e400]}`, ` {"a" : [ 1 , 2 ] } `,
	``, ` `, `{`, `[1,]`, `{"a":1,"a":2}`, `"\ud800"`, "\"\xff\"", `1 2`, `{} x`, `nul`, `[1e400,`, `{"a":}`,
}

// probes replace values of instances to make mutations.
var probes = []string{`null`, `true`, `0`, `-1`, `1.5`, `300`, `70000`, `1e10`, `""`, `"x"`, `"toolongvalue"`, `[]`, `[1]`, `["x","x"]`, `{}`, `{"a":1}`}

// mutations returns variations of the JSON value seed: each value in it
// replaced with each probe, each object member removed, a member added to
// each object, and each array's first item repeated at its end.
func mutations(seed string) []string {
	var top any
	if json.Unmarshal([]byte(seed), &top) != nil {
		return nil
	}
	var probeValues []any
	for _, p := range probes {
		var pv any
		if err := json.Unmarshal([]byte(p), &pv); err != nil {
			panic(err)
		}
		probeValues = append(probeValues, pv)
	}
	var out []string
	emit := func() {
		if b, err := json.Marshal(top, json.Deterministic(true)); err == nil {
			out = append(out, string(b))
		}
	}
	// walk visits every value v in top, whose setter set replaces it.
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		for _, p := range probeValues {
			set(p)
			emit()
		}
		set(v)
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				e := x[k]
				delete(x, k)
				emit()
				x[k] = e
				walk(e, func(n any) { x[k] = n })
			}
			x["zz"] = 1
			emit()
			delete(x, "zz")
		case []any:
			for i, e := range x {
				walk(e, func(n any) { x[i] = n })
			}
			if len(x) > 0 {
				set(append(slices.Clone(x), x[0]))
				emit()
				set(x)
			}
		}
	}
	walk(top, func(n any) { top = n })
	return out
}

// corpus returns the schemas of the differential tests, each with the
// instances to try.
func corpus(t testing.TB) []corpusCase {
	t.Helper()
	var cases []corpusCase
	for _, it := range inferredTypes {
		s, err := jsonschema.ForType(it.t, nil)
		if err != nil {
			t.Fatalf("ForType(%s): %v", it.t, err)
		}
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, corpusCase{name: it.t.String(), schema: string(raw), seeds: it.seeds})
	}
	for _, h := range handWritten {
		var seeds []string
		var vals []jsontext.Value
		if err := json.Unmarshal([]byte(h.seeds), &vals); err != nil {
			t.Fatalf("seeds %s: %v", h.seeds, err)
		}
		for _, v := range vals {
			seeds = append(seeds, string(v))
		}
		cases = append(cases, corpusCase{name: h.schema, schema: h.schema, seeds: seeds})
	}
	for _, n := range []int{9, 70} {
		s, in := many(n)
		cases = append(cases, corpusCase{name: fmt.Sprintf("%d required", n), schema: s, seeds: []string{in}})
	}
	return cases
}

type corpusCase struct {
	name   string
	schema string
	seeds  []string // instances to try and to mutate
}

func TestDifferential(t *testing.T) {
	total, valid := 0, 0
	for _, c := range corpus(t) {
		mine, err := Compile([]byte(c.schema))
		if err != nil {
			t.Errorf("%s: Compile: %v", c.name, err)
			continue
		}
		ref, err := resolve([]byte(c.schema))
		if err != nil {
			t.Fatalf("%s: jsonschema-go: %v", c.name, err)
		}
		instances := slices.Concat(pool, c.seeds)
		for _, s := range c.seeds {
			instances = append(instances, mutations(s)...)
		}
		caseValid := 0
		for _, in := range instances {
			got, want := mine.Validate([]byte(in)), referenceValidate(ref, []byte(in))
			total++
			if want == nil {
				valid++
				caseValid++
			}
			if (got == nil) != (want == nil) {
				t.Errorf("schema %s\ninstance %s\nschemacheck: %v\njsonschema-go: %v", c.schema, in, got, want)
			}
		}
		if caseValid == 0 && c.schema != `false` && c.schema != `{"enum":[]}` {
			t.Errorf("%s: no instance is valid; the case tests little", c.name)
		}
	}
	t.Logf("%d instances, %d valid", total, valid)
}

// FuzzInstances generates instances for the schemas of the corpus; the two
// implementations must agree on every one.
func FuzzInstances(f *testing.F) {
	cases := corpus(f)
	type pair struct {
		mine *Validator
		ref  *jsonschema.Resolved
	}
	var compiled []pair
	for i, c := range cases {
		mine, err := Compile([]byte(c.schema))
		if err != nil {
			f.Fatal(err)
		}
		ref, err := resolve([]byte(c.schema))
		if err != nil {
			f.Fatal(err)
		}
		compiled = append(compiled, pair{mine, ref})
		for _, s := range slices.Concat(c.seeds, pool[:len(pool)/4]) {
			f.Add(uint(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, i uint, instance string) {
		p := compiled[i%uint(len(compiled))]
		got, want := p.mine.Validate([]byte(instance)), referenceValidate(p.ref, []byte(instance))
		if (got == nil) != (want == nil) {
			t.Errorf("schema %s\ninstance %s\nschemacheck: %v\njsonschema-go: %v", cases[i%uint(len(cases))].schema, instance, got, want)
		}
	})
}

// FuzzSchemas mutates the schemas of the corpus as well as instances;
// wherever both implementations accept a schema, they must agree.
func FuzzSchemas(f *testing.F) {
	for _, c := range corpus(f) {
		for _, s := range c.seeds {
			f.Add(c.schema, s)
		}
	}
	f.Fuzz(func(t *testing.T, schema, instance string) {
		mine, err := Compile([]byte(schema))
		if err != nil {
			return
		}
		ref, err := resolve([]byte(schema))
		if err != nil {
			return
		}
		got, want := mine.Validate([]byte(instance)), referenceValidate(ref, []byte(instance))
		if (got == nil) != (want == nil) {
			t.Errorf("schema %s\ninstance %s\nschemacheck: %v\njsonschema-go: %v", schema, instance, got, want)
		}
	})
}

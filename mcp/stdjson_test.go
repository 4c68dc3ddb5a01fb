package mcp

import (
	"bytes"
	stdjson "encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// exportedType is an exported type declaration of package mcp.
type exportedType struct {
	name string
	// aliasOf is the mcp type an alias (type A = B) names; "" otherwise.
	aliasOf string
	// foreignAlias: an alias of a type of another package.
	foreignAlias bool
	isInterface  bool
}

// exportedTypes lists the exported type declarations of the package's
// non-test source, so that a new type shows up here without anyone listing it.
func exportedTypes(t *testing.T) []exportedType {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []exportedType
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Name.IsExported() {
					continue
				}
				et := exportedType{name: ts.Name.Name}
				if ts.Assign.IsValid() {
					if id, ok := ts.Type.(*ast.Ident); ok {
						et.aliasOf = id.Name
					} else {
						et.foreignAlias = true
					}
				}
				_, et.isInterface = ts.Type.(*ast.InterfaceType)
				out = append(out, et)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("found no exported types: is the test running in the package directory?")
	}
	return out
}

var (
	thisPackage        = reflect.TypeFor[Result]().PkgPath()
	marshalerToType    = reflect.TypeFor[json.MarshalerTo]()
	unmarshalerFrom    = reflect.TypeFor[json.UnmarshalerFrom]()
	stdMarshalerType   = reflect.TypeFor[stdjson.Marshaler]()
	stdUnmarshalerType = reflect.TypeFor[stdjson.Unmarshaler]()
)

// TestEveryExportedTypeHasASample fails for an exported type that
// stdjsonSamples does not cover, so that a type added later is checked under
// both encoders like the others. It also holds the samples to their promise
// (the named type, every field set) and the types to the JSON methods rule.
func TestEveryExportedTypeHasASample(t *testing.T) {
	declared := map[string]bool{}
	for _, et := range exportedTypes(t) {
		declared[et.name] = true
		sample, ok := stdjsonSamples[et.name]
		if et.aliasOf != "" {
			if ok {
				t.Errorf("%s is an alias of %s, which its sample already covers; remove its entry from stdjsonSamples", et.name, et.aliasOf)
			}
			continue
		}
		if !ok {
			t.Errorf("exported type %s has no sample: add a populated value to stdjsonSamples (stdjson_samples_test.go), "+
				"which checks that it encodes alike under encoding/json and json/v2", et.name)
			continue
		}
		rt := reflect.TypeOf(sample)
		if rt.Kind() != reflect.Pointer {
			t.Errorf("stdjsonSamples[%q] is a %s; want a pointer", et.name, rt)
			continue
		}
		if et.isInterface {
			checkInterfaceSample(t, et.name, sample)
			continue
		}
		if !et.foreignAlias && (rt.Elem().Name() != et.name || rt.Elem().PkgPath() != thisPackage) {
			t.Errorf("stdjsonSamples[%q] is a %s; want a *%s", et.name, rt, et.name)
		}
		if path := unsetField(reflect.ValueOf(sample).Elem(), et.name); path != "" {
			t.Errorf("stdjsonSamples[%q] leaves %s unset; set every field so that each member is checked", et.name, path)
		}
		checkJSONMethods(t, rt.Elem())
	}
	for name := range stdjsonSamples {
		if !declared[name] {
			t.Errorf("stdjsonSamples has %q, which is not an exported type of the package; remove it", name)
		}
	}
}

// checkInterfaceSample checks that the sample of an interface type is a list
// of that interface holding a value of every sampled type implementing it.
func checkInterfaceSample(t *testing.T, name string, sample any) {
	t.Helper()
	list := reflect.ValueOf(sample).Elem()
	if list.Kind() != reflect.Slice || list.Type().Elem().Kind() != reflect.Interface || list.Type().Elem().Name() != name {
		t.Errorf("stdjsonSamples[%q] is a %T; want a pointer to a list of %s", name, sample, name)
		return
	}
	iface := list.Type().Elem()
	held := map[reflect.Type]bool{}
	for i := range list.Len() {
		held[list.Index(i).Elem().Type()] = true
	}
	for other, s := range stdjsonSamples {
		st := reflect.TypeOf(s)
		if st.Implements(iface) && st.Elem().Kind() == reflect.Struct && !held[st] {
			t.Errorf("stdjsonSamples[%q] holds no %s, which implements %s; add one", name, other, name)
		}
	}
}

// unsetField returns the path of the first exported field of v (looking
// inside embedded structs) that holds its zero value, or "" when all are set.
func unsetField(v reflect.Value, path string) string {
	if v.Kind() != reflect.Struct {
		if v.IsZero() || (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0 {
			return path
		}
		return ""
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			if v.Field(i).IsZero() {
				return path + "." + f.Name
			}
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if p := unsetField(v.Field(i), path+"."+f.Name); p != "" {
				return p
			}
			continue
		}
		if v.Field(i).IsZero() {
			return path + "." + f.Name
		}
	}
	return ""
}

// checkJSONMethods holds a type to the package's rule: it has no JSON
// methods, or all four (the json/v2 pair that implements its form and the
// encoding/json pair that calls json/v2). A type with only MarshalJSON would
// be encoded by json/v2 through it too, slowly; one with only MarshalJSONTo
// is encoded wrongly by encoding/json. MarshalJSON has a value receiver, so
// that encoding/json calls it on values that are not addressable.
func checkJSONMethods(t *testing.T, rt reflect.Type) {
	t.Helper()
	pt := reflect.PointerTo(rt)
	has := []bool{pt.Implements(marshalerToType), pt.Implements(unmarshalerFrom),
		pt.Implements(stdMarshalerType), pt.Implements(stdUnmarshalerType)}
	decodeOnly := !has[0] && has[1] && !has[2] && has[3]
	if slices.Contains(has, true) && slices.Contains(has, false) && !decodeOnly {
		t.Errorf("%s has some JSON methods but not all (MarshalJSONTo %v, UnmarshalJSONFrom %v, MarshalJSON %v, UnmarshalJSON %v): "+
			"implement the form in the json/v2 pair and add the encoding/json pair to stdjson.go (or, decoding only, the two Unmarshal methods)", rt.Name(), has[0], has[1], has[2], has[3])
	}
	if has[2] && !rt.Implements(stdMarshalerType) {
		t.Errorf("%s.MarshalJSON has a pointer receiver; give it a value receiver so that encoding/json uses it on values", rt.Name())
	}
}

// TestEveryTypeEncodesAlikeUnderBothEncoders checks every sampled type, and
// its zero value, under encoding/json and json/v2: the two encodings are the
// same JSON, and each decodes under both decoders to the value encoded (for
// the zero value: to one that encodes the same again).
func TestEveryTypeEncodesAlikeUnderBothEncoders(t *testing.T) {
	names := make([]string, 0, len(stdjsonSamples))
	for name := range stdjsonSamples {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sample := stdjsonSamples[name]
			t.Run("populated", func(t *testing.T) { checkBothEncoders(t, sample, true) })
			t.Run("zero", func(t *testing.T) {
				zero := reflect.New(reflect.TypeOf(sample).Elem())
				if zero.Elem().Kind() == reflect.Map && !zero.Type().Implements(stdMarshalerType) {
					// A nil map on its own is null to encoding/json and {}
					// to json/v2, as each treats every nil map. Inside the
					// package's types a nil map member is omitted (the zero
					// values of those types check it) or has methods.
					return
				}
				checkBothEncoders(t, zero.Interface(), false)
			})
		})
	}
}

// namedDecoder is one package's decode function.
type namedDecoder struct {
	name      string
	unmarshal func([]byte, any) error
}

var bothDecoders = []namedDecoder{
	{"encoding/json", stdjson.Unmarshal},
	{"json/v2", func(b []byte, v any) error { return json.Unmarshal(b, v) }},
}

// checkBothEncoders encodes *ptr with both encoders (encoding/json also from
// a value that is not addressable), compares the encodings and decodes each
// with both decoders. A populated value must encode; a zero value may fail
// to, as long as every encoder fails.
func checkBothEncoders(t *testing.T, ptr any, populated bool) {
	t.Helper()
	v2, v2err := json.Marshal(ptr, json.Deterministic(true))
	v1, v1err := stdjson.Marshal(ptr)
	v1val, v1valErr := stdjson.Marshal(reflect.ValueOf(ptr).Elem().Interface())
	if v2err != nil || v1err != nil || v1valErr != nil {
		if populated || v2err == nil || v1err == nil || v1valErr == nil {
			t.Fatalf("encoding %T: json/v2 error %v, encoding/json error %v (from a value: %v)", ptr, v2err, v1err, v1valErr)
		}
		return
	}
	want := normalizeJSON(t, v2)
	if got := normalizeJSON(t, v1); got != want {
		t.Errorf("encoding/json encodes %T differently\nencoding/json: %s\n      json/v2: %s", ptr, v1, v2)
	}
	if got := normalizeJSON(t, v1val); got != want {
		t.Errorf("encoding/json encodes a %s value (not a pointer) differently\nencoding/json: %s\n      json/v2: %s",
			reflect.TypeOf(ptr).Elem(), v1val, v2)
	}
	for _, enc := range []struct {
		name string
		out  []byte
	}{{"encoding/json", v1}, {"json/v2", v2}} {
		for _, dec := range bothDecoders {
			got := reflect.New(reflect.TypeOf(ptr).Elem()).Interface()
			if err := dec.unmarshal(enc.out, got); err != nil {
				t.Errorf("%s cannot decode what %s encoded: %v\ninput: %s", dec.name, enc.name, err, enc.out)
				continue
			}
			if populated {
				if !reflect.DeepEqual(got, ptr) {
					again, _ := json.Marshal(got, json.Deterministic(true))
					t.Errorf("%s encoded and %s decoded %T into a different value\n encoded: %s\nre-encoded: %s",
						enc.name, dec.name, ptr, enc.out, again)
				}
				continue
			}
			again, err := json.Marshal(got, json.Deterministic(true))
			if err != nil || normalizeJSON(t, again) != want {
				t.Errorf("%s encoded and %s decoded the zero %T into a value that encodes differently (err %v)\n   first: %s\nre-encoded: %s",
					enc.name, dec.name, ptr, err, enc.out, again)
			}
		}
	}
}

// normalizeJSON rewrites every string of a JSON text in one escaping, keeping
// member order, so that encoding/json's \u003c for "<" and the like are no
// difference.
func normalizeJSON(t *testing.T, b []byte) string {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out)
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return out.String()
		}
		if err != nil {
			t.Fatalf("invalid JSON %s: %v", b, err)
		}
		if tok.Kind() == '"' {
			tok = jsontext.String(tok.String())
		}
		if err := enc.WriteToken(tok); err != nil {
			t.Fatalf("normalizing %s: %v", b, err)
		}
	}
}

// TestStrictDecodingUnderEncodingJSON checks that a type whose UnmarshalJSON
// calls json/v2 decodes as strictly under encoding/json: a duplicated member
// is rejected and member names are case-sensitive, exactly as under json/v2.
func TestStrictDecodingUnderEncodingJSON(t *testing.T) {
	checked := 0
	for name, sample := range stdjsonSamples {
		if !reflect.TypeOf(sample).Implements(stdUnmarshalerType) {
			continue // plain structs: encoding/json's own, lenient decoding
		}
		doc, err := json.Marshal(sample)
		if err != nil {
			t.Fatalf("encoding %s: %v", name, err)
		}
		dup, renamed, ok := mutateFirstMember(doc)
		if !ok {
			continue // not an object and holds none: nothing to duplicate
		}
		checked++
		typ := reflect.TypeOf(sample).Elem()
		v1 := reflect.New(typ).Interface()
		if err := stdjson.Unmarshal(dup, v1); err == nil {
			t.Errorf("encoding/json decoded a %s with a duplicated member; want an error\ninput: %s", name, dup)
		}
		v1, v2 := reflect.New(typ).Interface(), reflect.New(typ).Interface()
		v1err, v2err := stdjson.Unmarshal(renamed, v1), json.Unmarshal(renamed, v2)
		if (v1err == nil) != (v2err == nil) || !reflect.DeepEqual(v1, v2) {
			t.Errorf("%s with a member name in upper case decodes differently\nencoding/json: %+v (err %v)\n      json/v2: %+v (err %v)\ninput: %s",
				name, v1, v1err, v2, v2err, renamed)
		}
		if v1err == nil && reflect.DeepEqual(v1, sample) {
			t.Errorf("encoding/json matched a member name of %s in upper case; names are case-sensitive\ninput: %s", name, renamed)
		}
	}
	if checked == 0 {
		t.Fatal("no sampled type has an UnmarshalJSON to check")
	}
}

// mutateFirstMember finds the first member of the first non-empty object in
// doc and returns doc with that member duplicated, and doc with its name in
// upper case. ok is false when doc holds no such member or its name has no
// lower-case letter.
func mutateFirstMember(doc []byte) (dup, renamed []byte, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, nil, false
		}
		if tok.Kind() != '{' || dec.PeekKind() == '}' {
			continue
		}
		start := dec.InputOffset()
		tok, err = dec.ReadToken()
		if err != nil {
			return nil, nil, false
		}
		name := tok.String() // a token is valid only until the next read
		nameEnd := dec.InputOffset()
		if _, err := dec.ReadValue(); err != nil {
			return nil, nil, false
		}
		member := doc[start:dec.InputOffset()]
		upper := strings.ToUpper(name)
		if upper == name {
			return nil, nil, false
		}
		dup = slices.Concat(doc[:start], member, []byte(","), doc[start:])
		quoted, _ := jsontext.AppendQuote(nil, upper)
		renamed = slices.Concat(doc[:start], quoted, doc[nameEnd:])
		return dup, renamed, true
	}
}

// The examples of issue 15: what encoding/json made of these before.
func TestEncodingJSONIssueExamples(t *testing.T) {
	b, err := stdjson.Marshal(&CallToolResult{Content: Contents{&TextContent{Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, b, `{"content":[{"type":"text","text":"hi"}]}`)

	b, err = stdjson.Marshal(PromptMessage{Role: RoleUser, Content: &TextContent{Text: "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, b, `{"role":"user","content":{"type":"text","text":"hi"}}`)

	var r CallToolResult
	if err := stdjson.Unmarshal([]byte(`{"content":[{"type":"text","text":"hi"}],"isError":true}`), &r); err != nil {
		t.Fatalf("encoding/json cannot decode a CallToolResult: %v", err)
	}
	if text, ok := r.Content[0].(*TextContent); !ok || text.Text != "hi" || !r.IsError {
		t.Errorf("decoded %+v; want one text block \"hi\" and isError", r)
	}
}

package frontmatter

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseRendersYAMLAsJSON: the frontmatter's values keep the types a
// YAML 1.2 parser gives them (timestamps stay strings), a BOM and CRLF line
// ends are tolerated, and the body follows the closing line.
func TestParseRendersYAMLAsJSON(t *testing.T) {
	text := "\ufeff---\r\nname: pdf\r\ndescription: \"Work with PDFs\"\r\nversion: 2\r\nratio: 1.5\r\nbeta: true\r\n" +
		"released: 2026-01-26\r\nnone: ~\r\nmetadata:\r\n  tags: [a, b]\r\n---\r\nBody\n"
	fm, body, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": `"pdf"`, "description": `"Work with PDFs"`, "version": `2`, "ratio": `1.5`,
		"beta": `true`, "released": `"2026-01-26"`, "none": `null`, "metadata": `{"tags":["a","b"]}`}
	for k, v := range want {
		if string(fm[k]) != v {
			t.Errorf("%s = %s, want %s", k, fm[k], v)
		}
	}
	if len(fm) != len(want) || string(body) != "Body\n" {
		t.Errorf("members %d, body %q", len(fm), body)
	}
	for _, bad := range []string{"# no frontmatter\n", "---\nname: [unclosed\n---\n", "---\n- a\n---\n", "---\n1: x\nobj: {2: y}\n---\n", "---\nx: .inf\n---\n"} {
		if _, _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded; want an error", bad)
		}
	}
	if _, _, err := Parse([]byte("no block")); !errors.Is(err, ErrNone) {
		t.Errorf("Parse without a block: %v, want ErrNone", err)
	}
}

// TestEqualComparesValuesNotSpelling: members compare as JSON values, in
// any order and number spelling, and a missing member equals null.
func TestEqualComparesValuesNotSpelling(t *testing.T) {
	obj := func(s string) map[string]stdjson.RawMessage {
		var m map[string]stdjson.RawMessage
		if err := stdjson.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"n":1,"o":{"x":[1,2]}}`, `{"o":{"x":[1.0,2]},"n":1e0}`, true},
		{`{"n":1,"z":null}`, `{"n":1}`, true},
		{`{"d":"a"}`, `{"d":"b"}`, false},
		{`{"o":{"x":[1,2]}}`, `{"o":{"x":[2,1]}}`, false},
		{`{"n":1}`, `{"n":1,"extra":"x"}`, false},
	} {
		if got := Equal(obj(c.a), obj(c.b)); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestParseRefusesAnAliasInsideItsOwnValue: an alias that lies inside the
// value its anchor names (which a hostile server's SKILL.md may hold) is an
// error, not an endless expansion.
func TestParseRefusesAnAliasInsideItsOwnValue(t *testing.T) {
	for _, text := range []string{
		"---\nname: x\ndescription: y\nloop: &a [*a]\n---\n",
		"---\nname: x\ndescription: y\nloop: &a {next: [1, {back: *a}]}\n---\n",
	} {
		if _, _, err := Parse([]byte(text)); err == nil {
			t.Errorf("Parse(%q) succeeded; want an error", text)
		}
	}
	if fm, _, err := Parse([]byte("---\nname: &n x\ndescription: y\nnames: [*n, *n]\n---\n")); err != nil || string(fm["names"]) != `["x","x"]` {
		t.Errorf("an alias of an earlier value: %s, %v; want [\"x\",\"x\"]", fm["names"], err)
	}
}

// TestParseRefusesAliasesThatExpandFarBeyondTheText: aliases of aliases
// ("billion laughs") that would expand a few hundred bytes into half a
// million values are an error.
func TestParseRefusesAliasesThatExpandFarBeyondTheText(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: x\ndescription: y\nl0: &l0 [a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\n")
	if _, _, err := Parse([]byte(b.String())); err == nil {
		t.Errorf("Parse of %d bytes expanding to 9^7 values succeeded; want an error", b.Len())
	}
}

// TestParseReadsLeadingZeroIntegersAsDecimal: YAML 1.2, as JavaScript
// hosts parse it, reads 010 as ten (octal is written 0o10), so the
// frontmatter's JSON matches the host's parse of the same file.
func TestParseReadsLeadingZeroIntegersAsDecimal(t *testing.T) {
	fm, _, err := Parse([]byte("---\nname: x\ndescription: y\na: 010\nb: -0755\nc: +007\nd: 0o10\ne: 00\nf: '010'\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"a": `10`, "b": `-755`, "c": `7`, "d": `8`, "e": `0`, "f": `"010"`} {
		if string(fm[k]) != want {
			t.Errorf("%s = %s, want %s", k, fm[k], want)
		}
	}
}

// TestParseReadsOnlyYAML12NumbersAsNumbers: what YAML 1.1 reads as a
// number but the YAML 1.2 core schema, as hosts parse it, reads as a string
// (1_000, 0b101, -0x1F) stays a string, and "<<", a merge key in YAML 1.1
// only, is an ordinary member name.
func TestParseReadsOnlyYAML12NumbersAsNumbers(t *testing.T) {
	fm, _, err := Parse([]byte("---\nname: x\ndescription: y\na: 1_000\nb: 0b101\nc: -0x1F\nd: 1_000.5\ne: 0x1F\nf: 0o17\ng: -1.5e3\nh: .5\n<<: merge\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"a": `"1_000"`, "b": `"0b101"`, "c": `"-0x1F"`, "d": `"1_000.5"`, "e": `31`, "f": `15`, "g": `-1500`, "h": `0.5`, "<<": `"merge"`} {
		if string(fm[k]) != want {
			t.Errorf("%s = %s, want %s", k, fm[k], want)
		}
	}
}

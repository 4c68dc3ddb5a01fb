package cli

import (
	"strings"
	"testing"
)

func TestToolArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"text=hello"}, `{"text":"hello"}`},
		{[]string{"n=3", "ok=true", "none=null"}, `{"n":3,"ok":true,"none":null}`},
		{[]string{`s="3"`, "o={\"a\":[1]}"}, `{"s":"3","o":{"a":[1]}}`},
		{[]string{"text=hello world", "q=a=b", "e="}, `{"text":"hello world","q":"a=b","e":""}`},
		{[]string{`bad={"a":1`}, `{"bad":"{\"a\":1"}`},
	} {
		got, err := toolArguments(c.args, nil)
		if err != nil {
			t.Errorf("toolArguments(%q): %v", c.args, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("toolArguments(%q) = %s, want %s", c.args, got, c.want)
		}
	}
	for _, bad := range [][]string{{"text"}, {"=x"}, {"a=1", "a=2"}} {
		if _, err := toolArguments(bad, nil); exitCode(err) != ExitUsage {
			t.Errorf("toolArguments(%q) = %v, want a usage error", bad, err)
		}
	}
}

// TestTypedArguments checks that arguments are typed by the input schema,
// and that key:=json sends JSON as it stands.
func TestTypedArguments(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"},
		"x":{"type":"number"},"ok":{"type":"boolean"},"tags":{"type":"array"},"o":{"type":["null","object"]}}}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"text=3", "n=3", "x=1.5", "ok=true"}, `{"text":"3","n":3,"x":1.5,"ok":true}`},
		{[]string{`text="quoted"`, "text2=4"}, `{"text":"\"quoted\"","text2":4}`},
		{[]string{`tags=["a"]`, `o={"a":1}`}, `{"tags":["a"],"o":{"a":1}}`},
		{[]string{"text:=null", `n:="3"`}, `{"text":null,"n":"3"}`},
	} {
		got, err := toolArguments(c.args, schema)
		if err != nil {
			t.Errorf("toolArguments(%q): %v", c.args, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("toolArguments(%q) = %s, want %s", c.args, got, c.want)
		}
	}
	for _, bad := range [][]string{{"n=three"}, {"n=1.5"}, {"x=abc"}, {"ok=yes"}, {"tags={}"}, {"o=[1]"}, {"text:={"}} {
		_, err := toolArguments(bad, schema)
		if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), ":=") {
			t.Errorf("toolArguments(%q) = %v, want a usage error naming key:=", bad, err)
		}
	}
}

func TestStringArguments(t *testing.T) {
	got, err := stringArguments([]string{"name=Ada", `full="Ada Lovelace"`, "n=3"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": "Ada", "full": "Ada Lovelace", "n": "3"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

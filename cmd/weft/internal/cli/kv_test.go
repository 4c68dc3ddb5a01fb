package cli

import "testing"

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
		got, err := toolArguments(c.args)
		if err != nil {
			t.Errorf("toolArguments(%q): %v", c.args, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("toolArguments(%q) = %s, want %s", c.args, got, c.want)
		}
	}
	for _, bad := range [][]string{{"text"}, {"=x"}, {"a=1", "a=2"}} {
		if _, err := toolArguments(bad); exitCode(err) != ExitUsage {
			t.Errorf("toolArguments(%q) = %v, want a usage error", bad, err)
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

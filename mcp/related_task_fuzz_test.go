package mcp

import (
	"maps"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// WithRelatedTask, whichever way it takes, answers a JSON object with every
// member of the input kept and _meta holding the related task beside the
// input's own _meta members; anything but an object (or an object whose
// _meta is not one) is refused. AppendRelatedTask appends the same
// answer, compacted.
func FuzzWithRelatedTask(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":1}`, `{"_meta":{"x":true}}`, ` {"a":[{"_meta":1}]} `,
		`{"\u005fmeta":{}}`, `{"_meta":[]}`, `[]`, `"x"`, `{"a":"\"}"}`, `{"a":1,"a":2}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := WithRelatedTask(in, "t-1")
		var input map[string]any
		isObject := json.Unmarshal(in, &input) == nil && input != nil // null decodes to a nil map
		inputMeta, metaIsObject := input["_meta"].(map[string]any)
		if _, hasMeta := input["_meta"]; hasMeta && !metaIsObject {
			isObject = false
		}
		if !isObject {
			if err == nil {
				t.Fatalf("WithRelatedTask(%s) = %s; want an error, since the input is not an object with an object _meta", in, got)
			}
			if appended, err := AppendRelatedTask([]byte("["), in, "t-1"); err == nil || string(appended) != "[" {
				t.Fatalf("AppendRelatedTask(%s) = %s, %v; want an error and nothing appended", in, appended, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("WithRelatedTask(%s): %v", in, err)
		}
		var output map[string]any
		if err := json.Unmarshal(got, &output); err != nil {
			t.Fatalf("WithRelatedTask(%s) = %s, which is not a JSON object: %v", in, got, err)
		}
		wantMeta := map[string]any{}
		maps.Copy(wantMeta, inputMeta)
		wantMeta[MetaRelatedTask] = map[string]any{"taskId": "t-1"}
		want := map[string]any{}
		maps.Copy(want, input)
		want["_meta"] = wantMeta
		if !reflect.DeepEqual(output, want) {
			t.Fatalf("WithRelatedTask(%s) = %s; want the same members with _meta %v", in, got, wantMeta)
		}
		// AppendRelatedTask appends the same object, compacted.
		appended, err := AppendRelatedTask([]byte("["), in, "t-1")
		if err != nil {
			t.Fatalf("AppendRelatedTask(%s): %v, where WithRelatedTask gave %s", in, err, got)
		}
		compact, err := jsontext.AppendFormat([]byte("["), got)
		if err != nil || string(appended) != string(compact) {
			t.Fatalf("AppendRelatedTask(%s) = %s; want %s, WithRelatedTask's answer compacted (%v)", in, appended, compact, err)
		}
	})
}

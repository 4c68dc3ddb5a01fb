package mcp

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json"
)

// A text block with neither annotations nor _meta, encoded token by token
// (encodePlainText), is byte for byte what the reflective encoding of the
// same fields writes, and fails where it fails (text that is not UTF-8).
func FuzzPlainTextEncoding(f *testing.F) {
	for _, seed := range []string{"", "hello", "72°F, \"partly\" cloudy\n", "<b>&amp;</b>", "\u2028\u2029", "\x00\x1f", "\xff\xfe", "a\xed\xa0\x80b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, gotErr := json.Marshal(Contents{&TextContent{Text: text}})
		want, wantErr := json.Marshal([]any{&struct {
			Type string `json:"type"`
			*textContentFields
		}{ContentTypeText, &textContentFields{Text: text}}})
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("text %q: the plain encoding's error is %v, the reflective one's %v; want both or neither", text, gotErr, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("text %q: the plain encoding wrote %s; the reflective one %s", text, got, want)
		}
	})
}

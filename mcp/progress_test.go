package mcp

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

func TestProgressTokenKeepsWireForm(t *testing.T) {
	tests := []struct{ wire, raw string }{
		{`"oivaizmir"`, `"oivaizmir"`},
		{`"\u0041b"`, `"Ab"`}, // strings are kept in canonical form
		{`7`, `7`},
		{`-12`, `-12`},
		{`1.5`, `1.5`},
		{`1e3`, `1e3`},
	}
	for _, tt := range tests {
		var tok ProgressToken
		if err := json.Unmarshal([]byte(tt.wire), &tok); err != nil {
			t.Errorf("decoding %s: %v", tt.wire, err)
			continue
		}
		if tok.Raw() != tt.raw || !tok.IsValid() {
			t.Errorf("%s decoded to %q, want %q", tt.wire, tok.Raw(), tt.raw)
		}
		if got := string(encode(t, tok)); got != tt.raw {
			t.Errorf("%s re-encoded as %s", tt.wire, got)
		}
	}
	if StringProgressToken("1").Raw() == Int64ProgressToken(1).Raw() {
		t.Error(`the string "1" and the number 1 are the same token`)
	}
	for _, bad := range []string{`null`, `true`, `{}`, `["a"]`} {
		var tok ProgressToken
		if err := json.Unmarshal([]byte(bad), &tok); err == nil {
			t.Errorf("%s decoded as a progress token %s", bad, tok)
		}
	}
	if _, err := json.Marshal(ProgressToken{}); err == nil {
		t.Error("an absent progress token encoded")
	}
	if (ProgressToken{}).String() != "<none>" || (ProgressToken{}).IsValid() {
		t.Error("the zero token is not reported absent")
	}
}

func TestProgressNotificationParams(t *testing.T) {
	// Spec example: ProgressNotificationParams/progress-message.
	p := roundTrip[ProgressNotificationParams](t, `{"progressToken":"oivaizmir","progress":50,"total":100,"message":"Reticulating splines..."}`, "")
	if p.ProgressToken != StringProgressToken("oivaizmir") || p.Total != 100 {
		t.Errorf("params = %+v", p)
	}
	// 2024-11-05: integer token, no total, no message.
	p = roundTrip[ProgressNotificationParams](t, `{"progressToken":42,"progress":0.25}`, "")
	if p.ProgressToken != Int64ProgressToken(42) {
		t.Errorf("token = %s", p.ProgressToken)
	}
	for _, missing := range []string{`{"progress":1}`, `{"progressToken":null,"progress":1}`, `{}`} {
		var p ProgressNotificationParams
		err := json.Unmarshal([]byte(missing), &p)
		if err == nil || !strings.Contains(err.Error(), "progressToken") {
			t.Errorf("%s decoded with error %v; want one naming the missing progressToken", missing, err)
		}
	}
}

package auth_test

import (
	"maps"
	"net/http"
	"testing"

	"github.com/weftmcp/weft/auth"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []auth.Challenge
	}{
		{
			[]string{`Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"`},
			[]auth.Challenge{{"Bearer", map[string]string{
				"resource_metadata": "https://mcp.example.com/.well-known/oauth-protected-resource",
				"scope":             "files:read files:write",
			}}},
		},
		{
			[]string{`Basic realm="x", Bearer error="insufficient_scope", Scope=mcp:write,error_description="say \"hi\"\\"`},
			[]auth.Challenge{
				{"Basic", map[string]string{"realm": "x"}},
				{"Bearer", map[string]string{"error": "insufficient_scope", "scope": "mcp:write", "error_description": `say "hi"\`}},
			},
		},
		{
			[]string{`Negotiate abc==`, `DPoP algs="ES256 RS256", Bearer`},
			[]auth.Challenge{
				{"Negotiate", map[string]string{}},
				{"DPoP", map[string]string{"algs": "ES256 RS256"}},
				{"Bearer", map[string]string{}},
			},
		},
		{
			[]string{`Bearer scope="a", scope="b", error="unterminated`},
			[]auth.Challenge{{"Bearer", map[string]string{"scope": "a", "error": "unterminated"}}},
		},
		{[]string{`, ,`}, nil},
	} {
		got := auth.ParseChallenges(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("ParseChallenges(%q) = %+v, want %+v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i].Scheme != tc.want[i].Scheme || !maps.Equal(got[i].Params, tc.want[i].Params) {
				t.Errorf("ParseChallenges(%q)[%d] = %+v, want %+v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

func TestBearerChallenge_RoundTripsWhatTheMiddlewareWrites(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `DPoP algs="ES256"`)
	h.Add("WWW-Authenticate", `bearer scope="x y"`)
	c, ok := auth.BearerChallenge(h)
	if !ok || c.Params["scope"] != "x y" {
		t.Errorf("BearerChallenge = %+v, %v", c, ok)
	}
	if _, ok := auth.BearerChallenge(http.Header{}); ok {
		t.Error("found a challenge in an empty header")
	}
}

func FuzzParseChallenges(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://x", scope="a b"`)
	f.Add(`Basic realm="x", Bearer error="e", DPoP algs=ES256`)
	f.Add(`a=, =b, "c`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range auth.ParseChallenges([]string{s}) {
			if c.Scheme == "" {
				t.Errorf("empty scheme from %q", s)
			}
		}
	})
}

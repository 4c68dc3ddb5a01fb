package interop_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/mcp"
)

// modernObservations is what interop/js/sdk2-client.cjs reports beyond
// what sdk-client.cjs does.
type modernObservations struct {
	observations
	ProtocolVersion string `json:"protocolVersion"`
	Era             string `json:"era"`
	AskName         struct {
		Text         string   `json:"text"`
		Elicitations []string `json:"elicitations"`
	} `json:"askName"`
	Listen struct {
		Honored struct {
			ToolsListChanged bool `json:"toolsListChanged"`
		} `json:"honored"`
		Heard  string `json:"heard"`
		Added  string `json:"added"`
		Listed bool   `json:"listed"`
		Closed string `json:"closed"`
	} `json:"listen"`
}

// runSDK2Client runs interop/js/sdk2-client.cjs, the TypeScript SDK v2
// client, negotiating era ("auto" or "modern"), and decodes what it
// observed.
func runSDK2Client(t *testing.T, env []string, era string, args ...string) *modernObservations {
	t.Helper()
	var obs modernObservations
	runScript(t, "the TypeScript SDK v2 client", "sdk2-client.cjs", env, &obs, append([]string{era}, args...)...)
	return &obs
}

// checkModernObservations asserts what the v2 client saw: everything the
// v1 client sees, on the 2026-07-28 wire, plus a multi-round-trip
// elicitation the SDK fulfilled and retried by itself.
func checkModernObservations(t *testing.T, o *modernObservations) {
	t.Helper()
	if o.ProtocolVersion != "2026-07-28" || o.Era != "modern" {
		t.Errorf("negotiated %q (era %q), want 2026-07-28 (modern)", o.ProtocolVersion, o.Era)
	}
	checkObservations(t, &o.observations)
	if o.AskName.Text != "Hello, Grace!" || len(o.AskName.Elicitations) != 1 || o.AskName.Elicitations[0] != "What is your name?" {
		t.Errorf("ask_name = %+v, want one elicitation answered and the greeting", o.AskName)
	}
	if l := o.Listen; !l.Honored.ToolsListChanged || l.Heard != "announced" || !strings.HasPrefix(l.Added, "added_") || !l.Listed || l.Closed != "local" {
		t.Errorf("subscriptions/listen = %+v, want tool list changes honored, the added tool announced and listed, and a local close", l)
	}
}

// TestTypeScriptV2ClientOverStdio: the TypeScript SDK v2 client starts
// weft's server and drives it over stdio on the modern era, both pinned to
// 2026-07-28 and probing with server/discover (the SDK probes on a sibling
// process first).
func TestTypeScriptV2ClientOverStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range []string{"modern", "auto"} {
		t.Run(era, func(t *testing.T) {
			checkModernObservations(t, runSDK2Client(t, []string{serveEnv + "=stdio"}, era, "--stdio", self))
		})
	}
}

// TestTypeScriptV2ClientOverStreamableHTTP: the TypeScript SDK v2 client
// drives weft's server over Streamable HTTP on the modern era, pinned and
// probing.
func TestTypeScriptV2ClientOverStreamableHTTP(t *testing.T) {
	for _, era := range []string{"modern", "auto"} {
		t.Run(era, func(t *testing.T) {
			checkModernObservations(t, runSDK2Client(t, nil, era, "--http", serveHTTP(t)))
		})
	}
}

// TestTypeScriptV2ClientWithClientCredentials: the TypeScript SDK v2 client,
// authorizing with client credentials, reaches weft's OAuth-protected
// endpoint in both eras: it discovers the authorization server from the 401
// and the protected resource metadata, and weft names it as the principal.
// Then with a DPoP-bound token, where weft requires DPoP and server nonces
// (RFC 9449): the SDK's proofs, its nonce retry and weft's checks agree.
func TestTypeScriptV2ClientWithClientCredentials(t *testing.T) {
	as := authtest.NewServer(&authtest.Options{Clients: map[string]string{"ts-robot": "s3cret"}})
	t.Cleanup(as.Close)
	bearer := serveProtectedHTTP(t, as, nil)
	dpop := serveProtectedHTTP(t, as, &auth.DPoPConfig{Required: true, NonceWindow: time.Minute})
	for _, tc := range []struct{ name, url, mode string }{
		{"bearer", bearer, ""}, {"dpop", dpop, "dpop"},
	} {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(tc.name+"/"+era, func(t *testing.T) {
				var seen struct {
					ProtocolVersion string `json:"protocolVersion"`
					Whoami          string `json:"whoami"`
					Echo            string `json:"echo"`
				}
				args := []string{era, tc.url, as.URL, "ts-robot", "s3cret"}
				if tc.mode != "" {
					args = append(args, tc.mode)
				}
				runScript(t, "the TypeScript SDK v2 client", "sdk2-auth-client.cjs", nil, &seen, args...)
				if seen.Whoami != as.URL+"#sub:ts-robot" || seen.Echo != "echo: with a token" {
					t.Errorf("the client saw %+v, want to be ts-robot of %s and its echo", seen, as.URL)
				}
				if want := map[string]string{"legacy": mcp.LatestLegacyVersion, "modern": mcp.LatestVersion}[era]; seen.ProtocolVersion != want {
					t.Errorf("negotiated %q, want %q", seen.ProtocolVersion, want)
				}
			})
		}
	}
}

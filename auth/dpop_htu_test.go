package auth

import "testing"

// Proofs name the resource's URL as clients write it: RFC 9449 section 4.3
// compares it after syntax- and scheme-based normalization, so each of
// these names the same resource, and the last ones do not.
func TestNormalizeHTUComparesAsRFC3986Normalizes(t *testing.T) {
	const resource = "https://mcp.example.com/mcp"
	want := normalizeHTU(resource)
	for _, same := range []string{
		"https://mcp.example.com/mcp",
		"HTTPS://MCP.Example.com/mcp",
		"https://mcp.example.com:443/mcp",
		"https://mcp.example.com/mcp/",
		"https://mcp.example.com/%6dcp",
		"https://mcp.example.com/mcp?x=1#f",
	} {
		if got := normalizeHTU(same); got != want {
			t.Errorf("normalizeHTU(%q) = %q, want %q as for %s", same, got, want, resource)
		}
	}
	for _, other := range []string{
		"http://mcp.example.com/mcp",
		"https://mcp.example.com:8443/mcp",
		"https://mcp.example.com/MCP",
		"https://mcp.example.com/mcp/x",
	} {
		if got := normalizeHTU(other); got == want {
			t.Errorf("normalizeHTU(%q) = %q, the same as for %s", other, got, resource)
		}
	}
	if a, b := normalizeHTU("http://h:80/a%2fb"), normalizeHTU("http://h/a%2Fb"); a != b || a != "http://h/a%2Fb" {
		t.Errorf("escapes of reserved characters: %q and %q, want both http://h/a%%2Fb", a, b)
	}
}

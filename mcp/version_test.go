package mcp

import (
	"slices"
	"testing"
)

func TestSupportedVersionsNewestFirstAndFresh(t *testing.T) {
	want := []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	got := SupportedVersions()
	if !slices.Equal(got, want) {
		t.Fatalf("SupportedVersions() = %v, want %v", got, want)
	}
	got[0] = "mutated"
	if SupportedVersions()[0] != LatestVersion {
		t.Fatal("SupportedVersions shares its backing array between calls")
	}
	for _, v := range want {
		if !IsSupported(v) {
			t.Errorf("IsSupported(%q) = false", v)
		}
	}
}

func TestEraOfVersions(t *testing.T) {
	tests := []struct {
		v                         string
		supported, modern, legacy bool
	}{
		{"2024-11-05", true, false, true},
		{"2025-03-26", true, false, true},
		{"2025-06-18", true, false, true},
		{"2025-11-25", true, false, true},
		{"2026-07-28", true, true, false},
		{"2027-01-01", false, true, false}, // a future modern version we do not speak
		{"2025-12-01", false, false, true}, // not a real version, but legacy-dated
		{"2026-06-30", false, false, true}, // the never-released working name
		{"DRAFT-2026-v1", false, false, false},
		{"", false, false, false},
		{"2026-07-2x", false, false, false},
		{"1.0.0", false, false, false},
	}
	for _, tt := range tests {
		if got := IsSupported(tt.v); got != tt.supported {
			t.Errorf("IsSupported(%q) = %v, want %v", tt.v, got, tt.supported)
		}
		if got := IsModern(tt.v); got != tt.modern {
			t.Errorf("IsModern(%q) = %v, want %v", tt.v, got, tt.modern)
		}
		if got := IsLegacy(tt.v); got != tt.legacy {
			t.Errorf("IsLegacy(%q) = %v, want %v", tt.v, got, tt.legacy)
		}
	}
}

func TestNegotiateEchoesSupportedLegacyVersionElseLatestLegacy(t *testing.T) {
	tests := []struct{ requested, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2026-07-28", "2025-11-25"}, // modern versions have no handshake
		{"2025-12-01", "2025-11-25"},
		{"1.0.0", "2025-11-25"},
		{"", "2025-11-25"},
	}
	for _, tt := range tests {
		if got := Negotiate(tt.requested); got != tt.want {
			t.Errorf("Negotiate(%q) = %q, want %q", tt.requested, got, tt.want)
		}
	}
}

func TestFeaturePredicatesByVersion(t *testing.T) {
	versions := []string{Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}
	tests := []struct {
		name string
		pred func(string) bool
		want []bool // per version, oldest first
	}{
		{"AllowsBatch", AllowsBatch, []bool{false, true, false, false, false}},
		{"SupportsAudioContent", SupportsAudioContent, []bool{false, true, true, true, true}},
		{"SupportsToolAnnotations", SupportsToolAnnotations, []bool{false, true, true, true, true}},
		{"SupportsCompletionsCapability", SupportsCompletionsCapability, []bool{false, true, true, true, true}},
		{"SupportsProgressMessage", SupportsProgressMessage, []bool{false, true, true, true, true}},
		{"SupportsStructuredContent", SupportsStructuredContent, []bool{false, false, true, true, true}},
		{"SupportsAnyStructuredContent", SupportsAnyStructuredContent, []bool{false, false, false, false, true}},
		{"SupportsResourceLinks", SupportsResourceLinks, []bool{false, false, true, true, true}},
		{"SupportsTitles", SupportsTitles, []bool{false, false, true, true, true}},
		{"SupportsElicitation", SupportsElicitation, []bool{false, false, true, true, true}},
		{"SupportsCompletionContext", SupportsCompletionContext, []bool{false, false, true, true, true}},
		{"SupportsIcons", SupportsIcons, []bool{false, false, false, true, true}},
		{"SupportsURLElicitation", SupportsURLElicitation, []bool{false, false, false, true, true}},
		{"SupportsElicitationID", SupportsElicitationID, []bool{false, false, false, true, false}},
		{"SupportsSamplingTools", SupportsSamplingTools, []bool{false, false, false, true, true}},
		{"InvalidArgumentsAreToolErrors", InvalidArgumentsAreToolErrors, []bool{false, false, false, true, true}},
		{"SupportsTasksV1", SupportsTasksV1, []bool{false, false, false, true, false}},
		{"SupportsTasksExtension", SupportsTasksExtension, []bool{false, false, false, false, true}},
		{"SupportsResultType", SupportsResultType, []bool{false, false, false, false, true}},
		{"SupportsCaching", SupportsCaching, []bool{false, false, false, false, true}},
	}
	for _, tt := range tests {
		for i, v := range versions {
			if got := tt.pred(v); got != tt.want[i] {
				t.Errorf("%s(%q) = %v, want %v", tt.name, v, got, tt.want[i])
			}
		}
		if tt.pred("garbage") {
			t.Errorf("%s(\"garbage\") = true, want false", tt.name)
		}
	}
}

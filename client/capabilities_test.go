package client

import (
	"context"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
)

func TestCapabilitiesFollowTheHandlersAndTheVersion(t *testing.T) {
	roots := func(context.Context) (*mcp.ListRootsResult, error) { return &mcp.ListRootsResult{}, nil }
	all := Options{CreateMessage: sampleHello, SamplingTools: true, ElicitForm: declineElicit, ElicitURL: declineElicit, ListRoots: roots}
	for _, tc := range []struct {
		opts    Options
		version string
		want    string
	}{
		{Options{}, mcp.Version20260728, `{}`},
		{all, mcp.Version20241105, `{"roots":{"listChanged":true},"sampling":{}}`},
		{all, mcp.Version20250618, `{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}`},
		{Options{ElicitURL: declineElicit}, mcp.Version20250618, `{}`},
		{all, mcp.Version20251125, `{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}}`},
		{all, mcp.Version20260728, `{"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}}`},
		{Options{ElicitURL: declineElicit, CreateMessage: sampleHello}, mcp.Version20260728, `{"sampling":{},"elicitation":{"url":{}}}`},
	} {
		got, err := json.Marshal(tc.opts.capabilities(tc.version))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: capabilities %s, want %s", tc.version, got, tc.want)
		}
	}
}

package mcp

import "testing"

func TestResultTypeOmittedForLegacyAndKeptForModern(t *testing.T) {
	assertSameJSON(t, encode(t, &ListToolsResult{}), `{"tools":[]}`)
	modern := &ListToolsResult{Cache: &CacheableResult{TTLMs: 0, CacheScope: CachePrivate}}
	modern.ResultBase().ResultType = ResultComplete
	assertSameJSON(t, encode(t, modern), `{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}`)
}

func TestCacheHintsAbsentDecodeAsNil(t *testing.T) {
	r := roundTrip[ListPromptsResult](t, `{"prompts":[]}`, "")
	if r.Cache != nil {
		t.Errorf("legacy list result decoded cache hints %+v", r.Cache)
	}
	r = roundTrip[ListPromptsResult](t, `{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}`, "")
	if r.Cache == nil || r.Cache.TTLMs != 0 || r.Cache.CacheScope != CachePublic {
		t.Errorf("ttlMs 0 decoded as %+v", r.Cache)
	}
}

func TestResultTypeIsComplete(t *testing.T) {
	for rt, want := range map[ResultType]bool{"": true, ResultComplete: true, ResultInputRequired: false, ResultTask: false, "other": false} {
		if got := rt.IsComplete(); got != want {
			t.Errorf("ResultType(%q).IsComplete() = %v, want %v", rt, got, want)
		}
	}
}

func TestResultTypeOf(t *testing.T) {
	tests := []struct {
		raw  string
		want ResultType
	}{
		{`{"content":[{"type":"text","text":"x"}],"resultType":"complete"}`, ResultComplete},
		{`{"resultType":"input_required","requestState":"abc"}`, ResultInputRequired},
		{`{"resultType":"task","taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`, ResultTask},
		{`{"_meta":{"resultType":"nested"},"task":{"taskId":"t"}}`, ResultTask}, // legacy nested create result
		{`{"content":[]}`, ResultComplete}, // legacy result
		{`{}`, ResultComplete},
		{` {"resultType":"x-vendor"} `, "x-vendor"},
	}
	for _, tt := range tests {
		got, err := ResultTypeOf([]byte(tt.raw))
		if err != nil || got != tt.want {
			t.Errorf("ResultTypeOf(%s) = %q, %v; want %q", tt.raw, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"resultType":5}`, `{"a":}`, `{"a":1`} {
		if got, err := ResultTypeOf([]byte(bad)); err == nil {
			t.Errorf("ResultTypeOf(%s) = %q, want an error", bad, got)
		}
	}
}

func TestEmptyAckEncodesOnlyResultType(t *testing.T) {
	ack := UpdateTaskResult{ResultType: ResultComplete}
	if got := string(encode(t, &ack)); got != `{"resultType":"complete"}` {
		t.Errorf("ack = %s", got)
	}
	if got := string(encode(t, &EmptyResult{})); got != `{}` {
		t.Errorf("legacy empty result = %s", got)
	}
}

package client

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// headerTools are the tools of the conformance scenario
// http-invalid-tool-headers: one valid, and one for each broken rule.
var headerTools = []struct{ name, schema string }{
	{"valid_tool", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`},
	{"invalid_empty_header", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":""}}}`},
	{"invalid_object_header", `{"type":"object","properties":{"data":{"type":"object","x-mcp-header":"Data"}}}`},
	{"invalid_array_header", `{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}}}`},
	{"invalid_null_header", `{"type":"object","properties":{"nil":{"type":"null","x-mcp-header":"Nil"}}}`},
	{"invalid_number_header", `{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}}`},
	{"invalid_duplicate_same_case", `{"type":"object","properties":{"field1":{"type":"string","x-mcp-header":"Region"},"field2":{"type":"string","x-mcp-header":"Region"}}}`},
	{"invalid_duplicate_diff_case", `{"type":"object","properties":{"field1":{"type":"string","x-mcp-header":"MyField"},"field2":{"type":"string","x-mcp-header":"myfield"}}}`},
	{"invalid_space_in_name", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"My Region"}}}`},
	{"invalid_colon_in_name", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region:Primary"}}}`},
	{"invalid_non_ascii_name", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Région"}}}`},
	{"invalid_control_char_name", `{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region\t1"}}}`},
	{"invalid_nested_under_items", `{"type":"object","properties":{"list":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`},
}

// headerToolList answers tools/list with headerTools.
func headerToolList() handlerFunc {
	var b strings.Builder
	b.WriteString(`{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[`)
	for i, tool := range headerTools {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":%q,"inputSchema":%s}`, tool.name, tool.schema)
	}
	b.WriteString(`]}`)
	return raw(b.String())
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// SEP-2243: clients MUST reject (exclude) a tool whose x-mcp-header
// annotations are invalid, and keep the valid ones; each exclusion is
// logged with the tool's name and the broken rule.
func TestToolsWithInvalidHeaderAnnotationsAreLeftOut(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	s, _ := connect(t, &Options{Logger: logger}, map[string]handlerFunc{mcp.MethodToolsList: headerToolList()})
	var names []string
	for tool, err := range s.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"valid_tool"}) {
		t.Errorf("Tools = %v, want only valid_tool", names)
	}
	for _, tool := range headerTools[1:] {
		if !strings.Contains(logs.String(), "tool="+tool.name) {
			t.Errorf("no warning names %s; logs:\n%s", tool.name, logs.String())
		}
	}
}

// x-mcp-header exists only from 2026-07-28: a legacy session keeps every tool.
func TestLegacySessionsKeepToolsWhateverTheirAnnotations(t *testing.T) {
	s, _ := connect(t, &Options{ProtocolVersion: mcp.Version20251125}, map[string]handlerFunc{mcp.MethodToolsList: headerToolList()})
	res, err := s.ListTools(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(headerTools) {
		t.Errorf("ListTools kept %d tools, want all %d", len(res.Tools), len(headerTools))
	}
}

func TestHeaderAnnotationRules(t *testing.T) {
	for _, tc := range []struct {
		schema, problem string
	}{
		{`{"type":"object"}`, ""},
		{`{"type":"object","properties":{"a":{"type":"integer","x-mcp-header":"A"},"b":{"type":"boolean","x-mcp-header":"B-2_x"}}}`, ""},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"deep":{"type":"string","x-mcp-header":"Deep"}}}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string","default":{"x-mcp-header":5}}}}`, ""},
		{`{"type":"object","x-mcp-header":"Root"}`, "only properties"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":7}}}`, "not a string"},
		{`{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`, "only string, integer and boolean"},
		{`{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "only properties"},
		{`not json`, "not valid JSON"},
	} {
		err := checkHeaderAnnotations([]byte(tc.schema))
		switch {
		case tc.problem == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.schema, err)
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("%s: %v, want an error about %q", tc.schema, err, tc.problem)
		}
	}
}

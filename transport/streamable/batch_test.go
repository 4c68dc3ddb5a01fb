package streamable

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// A batch whose answer turns into an SSE stream (progress comes first) still
// answers its invalid elements, as events of that stream.
func TestBatchInvalidElementsAreAnsweredOnAnSSEStream(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20250326)
	batch := `[` + callBody("5", "progress", "") + `,{"jsonrpc":"2.0","id":6},42]`
	resp := do(t, "POST", url, legacyHeaders(sid), batch)
	wantStatus(t, resp, http.StatusOK)
	var got []string
	for _, ev := range events(t, resp) {
		if len(ev.Data) == 0 {
			continue
		}
		switch m := message(t, ev).(type) {
		case *jsonrpc.Response:
			code := int64(0)
			if m.Error != nil {
				code = m.Error.Code
			}
			got = append(got, fmt.Sprintf("%s:%d", m.ID.Raw(), code))
		case *jsonrpc.Request:
			got = append(got, m.Method)
		}
	}
	want := "6:-32600 null:-32600 notifications/progress notifications/progress 5:0"
	if strings.Join(got, " ") != want {
		t.Errorf("the stream carried %v; want %s", got, want)
	}
}

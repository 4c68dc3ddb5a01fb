package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// A metaMemo gives what decoding gives: the same capabilities for the same
// bytes (decoded once), different ones for different bytes, decoding's own
// errors for an absent, null or malformed value (none of them kept), and
// it holds at most metaMemoSize values.
func TestMetaMemoDecodesEachDistinctValueOnce(t *testing.T) {
	var memo metaMemo[mcp.ClientCapabilities]
	decodes := 0
	decode := func(m mcp.Meta) (mcp.ClientCapabilities, error) {
		decodes++
		return m.ClientCapabilities()
	}
	meta := func(raw string) mcp.Meta { return mcp.Meta{mcp.MetaClientCapabilities: json.RawMessage(raw)} }
	tasksCaps := `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	for range 3 {
		caps, err := memo.decode(meta(tasksCaps), mcp.MetaClientCapabilities, decode)
		if err != nil || !caps.HasExtension(mcp.ExtensionTasks) {
			t.Fatalf("decoded %+v, %v; want the tasks extension", caps, err)
		}
	}
	if decodes != 1 {
		t.Errorf("the same bytes were decoded %d times, want once", decodes)
	}
	caps, err := memo.decode(meta(`{}`), mcp.MetaClientCapabilities, decode)
	if err != nil || caps.HasExtension(mcp.ExtensionTasks) {
		t.Errorf("{} decoded as %+v, %v; want no extension", caps, err)
	}
	for _, bad := range []mcp.Meta{{}, meta(`null`), meta(`{"extensions":7}`)} {
		_, want := bad.ClientCapabilities()
		for range 2 {
			if _, err := memo.decode(bad, mcp.MetaClientCapabilities, decode); err == nil || err.Error() != want.Error() ||
				errors.Is(want, mcp.ErrAbsent) != errors.Is(err, mcp.ErrAbsent) {
				t.Errorf("decoding %v gave %v, want %v", bad, err, want)
			}
		}
	}
	for i := range 3 * metaMemoSize {
		if _, err := memo.decode(meta(fmt.Sprintf(`{"experimental":{"n%d":{}}}`, i)), mcp.MetaClientCapabilities, decode); err != nil {
			t.Fatal(err)
		}
		if n := len(memo.values); n > metaMemoSize {
			t.Fatalf("the memo holds %d values, want at most %d", n, metaMemoSize)
		}
	}
}

package streamable_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// Over HTTP/2 (TLS, as browsers and most proxies speak it) both eras work,
// progress streaming before the answer (SSE on an HTTP/2 stream).
func TestEndToEndOverHTTP2(t *testing.T) {
	h := newHandler(t, newServer())
	var all, h2 atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		all.Add(1)
		if r.ProtoMajor == 2 {
			h2.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	url := ts.URL + "/mcp"
	for _, v := range []string{mcp.Version20251125, ""} {
		s := connect(t, streamable.NewClient(url, &streamable.ClientOptions{HTTPClient: ts.Client()}), v)
		greet(t, s, "h2")
	}
	if h2.Load() == 0 || h2.Load() != all.Load() {
		t.Fatalf("%d of %d requests arrived over HTTP/2, want all", h2.Load(), all.Load())
	}
}

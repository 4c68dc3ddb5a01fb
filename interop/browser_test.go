package interop_test

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// browserPage is a page that calls the MCP endpoint at %[1]q from its own
// origin with fetch, as a browser-based client does: a legacy session
// (initialize, reading Mcp-Session-Id; initialized; tools/call) and a modern
// request with its mirrored headers, each preceded by a CORS preflight. It
// writes what it saw into #out as JSON.
const browserPage = `<!doctype html><html><body><pre id="out">pending</pre><script>
const url = %[1]q;
const out = document.getElementById('out');
const base = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'};
async function post(body, headers) {
  const r = await fetch(url, {method: 'POST', headers: Object.assign({}, base, headers), body: JSON.stringify(body)});
  const text = await r.text();
  return {status: r.status, session: r.headers.get('Mcp-Session-Id'), body: text ? JSON.parse(text) : null};
}
(async () => {
  try {
    const init = await post({jsonrpc: '2.0', id: 1, method: 'initialize',
      params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'browser', version: '1'}}}, {});
    const h = {'Mcp-Session-Id': init.session, 'MCP-Protocol-Version': '2025-11-25'};
    await post({jsonrpc: '2.0', method: 'notifications/initialized'}, h);
    const legacy = await post({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'echo', arguments: {text: 'legacy'}}}, h);
    const modern = await post({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'echo', arguments: {text: 'modern'},
      _meta: {'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': {name: 'browser', version: '1'},
        'io.modelcontextprotocol/clientCapabilities': {}}}},
      {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo'});
    out.textContent = JSON.stringify({session: init.session || '', legacy: legacy.body.result.content[0].text,
      modern: modern.body.result.content[0].text, resultType: modern.body.result.resultType});
  } catch (e) {
    out.textContent = JSON.stringify({error: String(e)});
  }
})();
</script></body></html>`

// chromium returns the headless browser to drive: Debian's chromium
// (scripts/test.sh installs it). Without one the test skips, except under
// CI=true, where that is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium to run the browser test (Debian: apt-get install chromium)")
	}
	t.Skip("no Chromium to run the browser test (Debian: apt-get install chromium; this fails under CI=true)")
	return ""
}

// TestBrowserClientOverStreamableHTTP: a page in a real browser (headless
// Chromium), served from another origin (http://localhost:…), uses weft's
// endpoint (http://127.0.0.1:…) with fetch, in both eras, through CORS.
func TestBrowserClientOverStreamableHTTP(t *testing.T) {
	browser := chromium(t)
	endpoint := serveHTTP(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, browserPage, endpoint)
	}), ReadHeaderTimeout: 10 * time.Second}
	go page.Serve(ln)
	t.Cleanup(func() { page.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	pageURL := "http://localhost:" + port + "/" // another origin than the endpoint's

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=20000", "--dump-dom", pageURL)
	cmd.Stderr = logTo(t, "chromium: ")
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<pre id="out">([^<]*)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the page holds no result: %s", dom)
	}
	var seen struct {
		Session, Legacy, Modern, ResultType, Error string
	}
	if err := stdjson.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &seen); err != nil {
		t.Fatalf("the page's result %q is not JSON: %v", m[1], err)
	}
	if seen.Error != "" {
		t.Fatalf("the page failed: %s (a CORS refusal shows as a failed fetch)", seen.Error)
	}
	if seen.Session == "" || seen.Legacy != "echo: legacy" || seen.Modern != "echo: modern" || seen.ResultType != "complete" {
		t.Errorf("the page saw %+v, want the session ID read and both echoes", seen)
	}
}

package console_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/weftmcp/weft/console"
)

// csrfOf returns the CSRF token in the page the console at url serves.
func csrfOf(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="weft-csrf" content="([^"]+)"`).FindStringSubmatch(string(page))
	if m == nil {
		t.Fatalf("the page has no CSRF token: %s", page)
	}
	return m[1]
}

// cancel posts a cancel of the task with id to the console at url, with
// the CSRF token csrf, and returns the status.
func cancel(t *testing.T, url, id, csrf string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"api/tasks/"+id+"/cancel", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Weft-Console-Csrf", csrf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Consoles given the same CSRFKey, as instances behind a load balancer
// without sticky routing, take each other's pages' actions; consoles
// without one, or with another key, do not.
func TestConsolesSharingACSRFKeyTakeEachOthersActions(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	a := newRig(t, console.Options{CSRFKey: key})
	b := newRig(t, console.Options{CSRFKey: key})
	other := newRig(t, console.Options{CSRFKey: []byte(strings.Repeat("o", 32))})
	random := newRig(t, console.Options{})
	token := csrfOf(t, a.url)
	if code := cancel(t, b.url, b.start(t, "alice"), token); code != http.StatusOK {
		t.Errorf("a cancel from A's page on B, which shares A's key: HTTP %d, want 200", code)
	}
	if code := cancel(t, other.url, other.start(t, "alice"), token); code != http.StatusForbidden {
		t.Errorf("a cancel from A's page on a console with another key: HTTP %d, want 403", code)
	}
	if code := cancel(t, random.url, random.start(t, "alice"), token); code != http.StatusForbidden {
		t.Errorf("a cancel from A's page on a console without a key: HTTP %d, want 403", code)
	}
	if csrfOf(t, random.url) == csrfOf(t, newRig(t, console.Options{}).url) {
		t.Error("two consoles without a key have the same CSRF token")
	}
}

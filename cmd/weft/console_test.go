package main

import (
	"io"
	"net/http"
	"regexp"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHTTPGet is "httpget URL STATUS [REGEXP]": a GET of URL must answer
// STATUS, with a body matching REGEXP if given (with !, not matching it).
func cmdHTTPGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 || (neg && len(args) != 3) {
		ts.Fatalf("usage: httpget URL STATUS [REGEXP]")
	}
	status, body := fetch(ts, http.MethodGet, args[0], nil)
	if strconv.Itoa(status) != args[1] {
		ts.Fatalf("httpget %s: %d, want %s; body: %s", args[0], status, args[1], body)
	}
	if len(args) == 3 {
		matched := regexp.MustCompile(args[2]).Match(body)
		if matched == neg {
			ts.Fatalf("httpget %s: the body matches %q: %v, want %v; body: %s", args[0], args[2], matched, !neg, body)
		}
	}
}

// cmdCancelFrom is "cancelfrom CONSOLE ID STATUS": it cancels task ID from
// the console at CONSOLE as its page does (with the CSRF token the page
// carries; with !, without it) and expects STATUS.
func cmdCancelFrom(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: cancelfrom CONSOLE ID STATUS")
	}
	header := http.Header{}
	if !neg {
		_, page := fetch(ts, http.MethodGet, args[0], nil)
		m := regexp.MustCompile(`<meta name="weft-csrf" content="([^"]+)">`).FindSubmatch(page)
		if m == nil {
			ts.Fatalf("cancelfrom: the console's page carries no CSRF token: %s", page)
		}
		header.Set("X-Weft-Console-Csrf", string(m[1]))
	}
	status, body := fetch(ts, http.MethodPost, args[0]+"api/tasks/"+args[1]+"/cancel", header)
	if strconv.Itoa(status) != args[2] {
		ts.Fatalf("cancelfrom: %d, want %s; body: %s", status, args[2], body)
	}
}

// fetch sends a request and returns the status and body.
func fetch(ts *testscript.TestScript, method, url string, header http.Header) (int, []byte) {
	req, err := http.NewRequest(method, url, nil)
	ts.Check(err)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Timeout: externalWait}).Do(req)
	if err != nil {
		ts.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)
	return resp.StatusCode, body
}

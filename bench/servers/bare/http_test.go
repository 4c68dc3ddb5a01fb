package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// post sends body to h with the given session and protocol headers.
func post(h http.Handler, session, version, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if session != "" {
		r.Header.Set(headerSession, session)
	}
	if version != "" {
		r.Header.Set(headerProtocol, version)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const echoCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`

func TestHTTPSessionLifecycle(t *testing.T) {
	h := newHTTPHandler()
	opened := post(h, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	id := opened.Header().Get(headerSession)
	if opened.Code != http.StatusOK || id == "" {
		t.Fatalf("initialize: HTTP %d, session %q; want 200 and a session id", opened.Code, id)
	}
	if again := post(h, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`); again.Header().Get(headerSession) == id {
		t.Error("two initializes got the same session id")
	}

	for _, tc := range []struct {
		name, session, version, body string
		status                       int
		answer                       string
	}{
		{"notification", id, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted, ""},
		{"call", id, "2025-11-25", echoCall, http.StatusOK, `"text":"hi"`},
		{"call without version header", id, "", echoCall, http.StatusOK, `"text":"hi"`},
		{"no session", "", "2025-11-25", echoCall, http.StatusBadRequest, "header is missing"},
		{"unknown session", "nope", "2025-11-25", echoCall, http.StatusNotFound, "no such session"},
		{"other version", id, "2025-06-18", echoCall, http.StatusBadRequest, "does not match"},
		{"not JSON", id, "2025-11-25", `{`, http.StatusBadRequest, `"code":-32700`},
	} {
		w := post(h, tc.session, tc.version, tc.body)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.answer) {
			t.Errorf("%s: HTTP %d %q; want %d containing %q", tc.name, w.Code, w.Body, tc.status, tc.answer)
		}
		if tc.status != http.StatusAccepted && w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", tc.name, w.Header().Get("Content-Type"))
		}
	}

	del := httptest.NewRequest(http.MethodDelete, "/mcp", nil)
	del.Header.Set(headerSession, id)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, del)
	if w.Code != http.StatusNoContent {
		t.Errorf("DELETE of the session: HTTP %d, want 204", w.Code)
	}
	if after := post(h, id, "2025-11-25", echoCall); after.Code != http.StatusNotFound {
		t.Errorf("call on a deleted session: HTTP %d, want 404", after.Code)
	}

	get := httptest.NewRecorder()
	h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if get.Code != http.StatusMethodNotAllowed || get.Header().Get("Allow") != "POST, DELETE" {
		t.Errorf("GET: HTTP %d, Allow %q; want 405 naming POST, DELETE", get.Code, get.Header().Get("Allow"))
	}
}

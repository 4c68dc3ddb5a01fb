package sse

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestServeOptionsAnswersAPreflight(t *testing.T) {
	r := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
	r.Header.Set("Origin", "http://localhost:6274")
	r.Header.Set("Access-Control-Request-Method", "POST")
	r.Header.Add("Access-Control-Request-Headers", "content-type, mcp-protocol-version,authorization")
	r.Header.Add("Access-Control-Request-Headers", "bad header, mcp-param-region")
	w := httptest.NewRecorder()
	ServeOptions(w, r, "GET, POST, DELETE")
	h := w.Result().Header
	want := map[string]string{
		"Access-Control-Allow-Origin":  "http://localhost:6274",
		"Access-Control-Allow-Methods": "GET, POST, DELETE",
		"Access-Control-Allow-Headers": "content-type, mcp-protocol-version, authorization, mcp-param-region",
		"Access-Control-Max-Age":       "600",
		"Allow":                        "GET, POST, DELETE, OPTIONS",
	}
	if w.Code != http.StatusNoContent {
		t.Errorf("status %d, want 204", w.Code)
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if h.Get("Access-Control-Allow-Credentials") != "" {
		t.Error("the preflight grants credentials")
	}
}

func TestServeOptionsWithoutCORS(t *testing.T) {
	w := httptest.NewRecorder()
	ServeOptions(w, httptest.NewRequest(http.MethodOptions, "/mcp", nil), "GET, POST")
	if w.Code != http.StatusNoContent || w.Result().Header.Get("Allow") != "GET, POST, OPTIONS" ||
		w.Result().Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a plain OPTIONS got %d %v", w.Code, w.Result().Header)
	}
}

func TestAllowCORSOnlyForCrossOriginRequests(t *testing.T) {
	w := httptest.NewRecorder()
	AllowCORS(w, httptest.NewRequest(http.MethodPost, "/mcp", nil), "Mcp-Session-Id")
	if len(w.Result().Header) != 0 {
		t.Errorf("a request without Origin got %v", w.Result().Header)
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Origin", "http://127.0.0.1:6274")
	w = httptest.NewRecorder()
	AllowCORS(w, r, "Mcp-Session-Id")
	h := w.Result().Header
	if h.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:6274" || h.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id" || h.Get("Vary") != "Origin" {
		t.Errorf("a cross-origin request got %v", h)
	}
}

package fetch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

func TestJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/json" {
			t.Errorf("Accept = %q", r.Header.Get("Accept"))
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte(`{"issuer":"x"}`))
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`{"issuer":"x"}`))
		case "/dup":
			_, _ = w.Write([]byte(`{"issuer":"x","issuer":"y"}`))
		case "/case":
			_, _ = w.Write([]byte(`{"ISSUER":"x"}`))
		case "/big":
			_, _ = w.Write([]byte(`{"issuer":"` + strings.Repeat("a", fetch.MaxBytes) + `"}`))
		case "/down":
			http.Error(w, "down", http.StatusBadGateway)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	type doc struct {
		Issuer string `json:"issuer"`
	}
	ctx := context.Background()
	var d doc
	if err := fetch.JSON(ctx, srv.Client(), srv.URL+"/ok", &d); err != nil || d.Issuer != "x" {
		t.Errorf("ok: %+v, %v", d, err)
	}
	d = doc{}
	if err := fetch.JSON(ctx, srv.Client(), srv.URL+"/case", &d); err != nil || d.Issuer != "" {
		t.Errorf("member names must match case-sensitively: %+v, %v", d, err)
	}
	if err := fetch.JSON(ctx, srv.Client(), srv.URL+"/missing", &d); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("404: %v, want ErrNotFound", err)
	}
	for _, path := range []string{"/html", "/dup", "/big", "/down"} {
		err := fetch.JSON(ctx, srv.Client(), srv.URL+path, &d)
		if err == nil || errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("%s: %v, want a failure that is not ErrNotFound", path, err)
		}
	}
}

func TestCheckSecureURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://as.example.com":          true,
		"http://localhost:8080/x":         true,
		"http://127.0.0.1:9/x":            true,
		"http://[::1]:9/x":                true,
		"http://as.example.com":           false,
		"https://as.example.com/#frag":    false,
		"/relative":                       false,
		"ftp://as.example.com":            false,
		"http://localhost.evil.com/token": false,
	} {
		if err := fetch.CheckSecureURL("url", raw); (err == nil) != ok {
			t.Errorf("CheckSecureURL(%q) = %v, want ok=%v", raw, err, ok)
		}
	}
}

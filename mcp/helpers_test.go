package mcp

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
)

// roundTrip decodes wire into a fresh T, encodes the result and checks that it
// means the same JSON as want (wire itself when want is ""). It returns the
// decoded value for further checks.
func roundTrip[T any](t *testing.T, wire, want string) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal([]byte(wire), v); err != nil {
		t.Fatalf("decoding %T: %v\ninput: %s", v, err, wire)
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	if want == "" {
		want = wire
	}
	assertSameJSON(t, got, want)
	return v
}

// assertSameJSON fails unless got and want are the same JSON value, ignoring
// member order and insignificant whitespace.
func assertSameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is invalid JSON %s: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("JSON differs\n got: %s\nwant: %s", got, compact(t, want))
	}
}

// encode marshals v and fails the test on error.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return b
}

// compact returns s without insignificant whitespace, for messages.
func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return s
	}
	return string(b)
}

package mcp

import "testing"

func TestRootsExamples(t *testing.T) {
	// Spec example: ListRootsResult/multiple-root-directories.
	r := roundTrip[ListRootsResult](t, `{"roots":[{"uri":"file:///home/user/repos/frontend","name":"Frontend Repository"},
	  {"uri":"file:///home/user/repos/backend","name":"Backend Repository"}]}`, "")
	if len(r.Roots) != 2 || r.Roots[1].Name != "Backend Repository" {
		t.Errorf("roots = %+v", r.Roots)
	}
	assertSameJSON(t, encode(t, &ListRootsResult{}), `{"roots":[]}`)
	roundTrip[ListRootsParams](t, `{}`, "")
}

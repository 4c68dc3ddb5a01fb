package server

import (
	"strings"
	"testing"
)

// During a rotation, state signed with the old key is still accepted by a
// server that signs with the new one; once the old key is dropped, it is
// not.
func TestMRTR_RotatedStateKeyStillVerifies(t *testing.T) {
	old := []byte("old-key-0123456789abcdef01234567")
	next := []byte("new-key-0123456789abcdef01234567")
	answer := map[string]string{"elicitation-1": aliceAnswer}
	before := &mrtr{t: t, s: askServer(t, &Options{StateKey: old}), caps: allCaps}
	issued := before.inputRequired(before.call("tools/call", `{"name":"elicit"}`))

	rotated := &mrtr{t: t, s: askServer(t, &Options{StateKey: next, PreviousStateKeys: [][]byte{old}}), caps: allCaps}
	rotated.complete(rotated.call("tools/call", retry(`{"name":"elicit"}`, answer, issued.RequestState)))
	// What the rotated server signs, a server with only the new key opens.
	fresh := rotated.inputRequired(rotated.call("tools/call", `{"name":"elicit"}`))
	after := &mrtr{t: t, s: askServer(t, &Options{StateKey: next}), caps: allCaps}
	after.complete(after.call("tools/call", retry(`{"name":"elicit"}`, answer, fresh.RequestState)))
	resp := after.call("tools/call", retry(`{"name":"elicit"}`, answer, issued.RequestState))
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "integrity") {
		t.Fatalf("state signed with a key no longer configured: got %v, want the integrity error", resp.Error)
	}
}

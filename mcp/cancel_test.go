package mcp

import (
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestCancelledNotificationParams(t *testing.T) {
	// Spec example: CancelledNotificationParams/user-requested-cancellation.
	p := roundTrip[CancelledNotificationParams](t, `{"requestId":"123","reason":"User requested cancellation"}`, "")
	if p.RequestID != jsonrpc.StringID("123") {
		t.Errorf("requestId = %s, want the string \"123\"", p.RequestID)
	}
	p = roundTrip[CancelledNotificationParams](t, `{"requestId":123}`, "")
	if p.RequestID != jsonrpc.Int64ID(123) {
		t.Errorf("requestId = %s, want the number 123", p.RequestID)
	}
	// 2025-11-25 allows the request ID to be absent; it stays absent.
	p = roundTrip[CancelledNotificationParams](t, `{"reason":"r"}`, "")
	if p.RequestID.IsValid() {
		t.Errorf("absent requestId decoded as %s", p.RequestID)
	}
}

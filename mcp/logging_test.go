package mcp

import "testing"

func TestLoggingLevelAllows(t *testing.T) {
	levels := []LoggingLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}
	for i, threshold := range levels {
		if !threshold.Valid() {
			t.Errorf("%q is not Valid", threshold)
		}
		for j, msg := range levels {
			if got, want := threshold.Allows(msg), j >= i; got != want {
				t.Errorf("%q.Allows(%q) = %v, want %v", threshold, msg, got, want)
			}
		}
	}
	for _, bad := range []LoggingLevel{"", "verbose", "WARNING"} {
		if bad.Valid() || bad.Allows(LevelEmergency) || LevelDebug.Allows(bad) {
			t.Errorf("unknown level %q treated as valid", bad)
		}
	}
}

func TestLoggingMessages(t *testing.T) {
	// Spec example: LoggingMessageNotificationParams/log-database-connection-failed.
	p := roundTrip[LoggingMessageNotificationParams](t, `{"level":"error","logger":"database",
	  "data":{"error":"Connection failed","details":{"host":"localhost","port":5432}}}`, "")
	if p.Level != LevelError || p.Logger != "database" {
		t.Errorf("params = %+v", p)
	}
	roundTrip[SetLevelParams](t, `{"level":"notice"}`, "")
	// Data is required: a string message and even null are values.
	roundTrip[LoggingMessageNotificationParams](t, `{"level":"info","data":"started"}`, "")
	roundTrip[LoggingMessageNotificationParams](t, `{"level":"info","data":null}`, "")
}

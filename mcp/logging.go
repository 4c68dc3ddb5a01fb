package mcp

import stdjson "encoding/json"

// LoggingLevel is a log message severity, after RFC 5424. Logging is
// deprecated in 2026-07-28 but still works.
type LoggingLevel string

// Logging levels, least severe first.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// severity ranks a level from 0 (debug) to 7 (emergency); -1 if unknown.
func (l LoggingLevel) severity() int {
	switch l {
	case LevelDebug:
		return 0
	case LevelInfo:
		return 1
	case LevelNotice:
		return 2
	case LevelWarning:
		return 3
	case LevelError:
		return 4
	case LevelCritical:
		return 5
	case LevelAlert:
		return 6
	case LevelEmergency:
		return 7
	}
	return -1
}

// Valid reports whether l is one of the eight levels.
func (l LoggingLevel) Valid() bool { return l.severity() >= 0 }

// Allows reports whether a message at level msg passes the threshold l, that
// is, msg is at least as severe as l. Unknown levels allow nothing.
func (l LoggingLevel) Allows(msg LoggingLevel) bool {
	t, m := l.severity(), msg.severity()
	return t >= 0 && m >= t
}

// SetLevelParams are the params of logging/setLevel (legacy; the modern era
// sets _meta[MetaLogLevel] per request instead).
type SetLevelParams struct {
	RequestParams
	Level LoggingLevel `json:"level"`
}

// LoggingMessageNotificationParams are the params of notifications/message.
type LoggingMessageNotificationParams struct {
	NotificationParams
	Level LoggingLevel `json:"level"`
	// Logger names the source, optionally.
	Logger string `json:"logger,omitempty"`
	// Data is any JSON value, raw; required, so nil encodes as null.
	Data stdjson.RawMessage `json:"data"`
}

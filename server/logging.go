package server

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
)

// Log sends a log message (notifications/message) related to this request,
// if the client asked for messages of that level: in the legacy era with
// logging/setLevel on the session (nothing is sent before the client sets a
// level); in the modern era only when the request's _meta carries
// io.modelcontextprotocol/logLevel, honouring that level. data is any value
// that encodes as JSON. Like Progress, Log is allowed only while the handler
// runs and returns ErrRequestDone afterwards. Inside a task, a legacy
// session keeps getting the messages (tagged with the task) while it lasts;
// a modern task has no stream for them, and they are dropped.
func (r *Request) Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	if !level.Valid() {
		return fmt.Errorf("server: %q is not a logging level; use one of the mcp.Level constants", level)
	}
	threshold := r.logLevel
	if r.session != nil {
		threshold = r.session.logLevel()
	}
	if threshold == "" || !threshold.Allows(level) {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("server: log data of type %T cannot be encoded as JSON: %w", data, err)
	}
	params := &mcp.LoggingMessageNotificationParams{Level: level, Logger: logger, Data: raw}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inTaskLocked() {
		if r.taskEndedLocked() {
			return ErrRequestDone
		}
		return r.taskNotifyLocked(ctx, mcp.NotificationMessage, params)
	}
	return r.notifyLocked(ctx, mcp.NotificationMessage, params)
}

// setLevel answers logging/setLevel (legacy): the session's log threshold.
func (s *Server) setLevel(ctx context.Context, r *Request, p *mcp.SetLevelParams) (result, error) {
	if !p.Level.Valid() {
		return nil, invalidParams("level %q is not a logging level; use debug, info, notice, warning, error, critical, alert or emergency", p.Level)
	}
	if sh := r.session.shared(); sh != nil {
		if err := sh.SetLevel(ctx, string(p.Level)); err != nil {
			return nil, storeError(err)
		}
	}
	r.session.mu.Lock()
	r.session.level = p.Level
	r.session.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

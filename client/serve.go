package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// handle serves what the server sends besides responses: legacy
// server-to-client requests and every notification.
func (s *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		s.notification(ctx, req)
		return nil, nil
	}
	st := s.settled()
	if st != nil && !mcp.MethodInVersion(req.Method, st.version) {
		if st.modern {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound,
				"%s: a %s server sends no requests; it asks for input inside input_required results", req.Method, st.version)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "%s is not a request of protocol version %s", req.Method, st.version)
	}
	if req.Method == mcp.MethodPing {
		return &mcp.EmptyResult{}, nil
	}
	if s.host != nil && st != nil && mcp.SupportsTasksV1(st.version) {
		if res, handled, err := s.host.serve(ctx, s, req); handled {
			return res, refused(err)
		}
	}
	res, err := s.client.serveInput(ctx, req.Method, req.Params)
	if err != nil {
		return nil, refused(err)
	}
	return withRelatedTask(req.Params, res)
}

// refused turns a *refusal into the JSON-RPC error the server gets.
func refused(err error) error {
	var r *refusal
	if errors.As(err, &r) {
		return jsonrpc.NewError(r.code, "%s", r.msg)
	}
	return err
}

// withRelatedTask gives the result of a request that belongs to a task
// (a 2025-11-25 request whose _meta names a related task, such as an
// elicitation a tool task needs) the same related-task _meta, as the
// protocol requires of every response related to a task. Other results are
// returned as they are.
func withRelatedTask(params []byte, res any) (any, error) {
	var p mcp.RequestParams
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return res, nil
	}
	related, err := p.Meta.RelatedTask()
	if err != nil {
		return res, nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("client: encoding the handler's result: %w", err)
	}
	out, err := mcp.WithRelatedTask(raw, related.TaskID)
	if err != nil {
		return nil, fmt.Errorf("client: marking the result as related to task %s: %w", related.TaskID, err)
	}
	return out, nil
}

// notification routes one notification to its callback. Notifications of a
// modern subscription go through only while the subscription is open.
func (s *Session) notification(ctx context.Context, req *jsonrpc.Request) {
	o := s.opts
	switch req.Method {
	case mcp.NotificationProgress:
		var p mcp.ProgressNotificationParams
		if s.decode(req, &p) && !s.progress.dispatch(&p) {
			s.client.logger.Debug("client: dropping progress for a token no call in flight holds", "token", p.ProgressToken)
		}
	case mcp.NotificationMessage:
		var p mcp.LoggingMessageNotificationParams
		if o.OnLog != nil && s.decode(req, &p) {
			o.OnLog(ctx, &p)
		}
	case mcp.NotificationToolsListChanged:
		s.tools.forget()
		deliver(ctx, s, req, o.OnToolsListChanged)
	case mcp.NotificationPromptsListChanged:
		deliver(ctx, s, req, o.OnPromptsListChanged)
	case mcp.NotificationResourcesListChanged:
		deliver(ctx, s, req, o.OnResourcesListChanged)
	case mcp.NotificationResourcesUpdated:
		deliver(ctx, s, req, o.OnResourceUpdated)
	case mcp.NotificationElicitationComplete:
		var p mcp.ElicitationCompleteNotificationParams
		if o.OnElicitationComplete != nil && s.decode(req, &p) {
			o.OnElicitationComplete(ctx, &p)
		}
	case mcp.NotificationTasksStatus, mcp.NotificationTasks:
		s.taskStatus(ctx, req)
	case mcp.NotificationSubscriptionsAcknowledged:
		var p mcp.SubscriptionsAcknowledgedNotificationParams
		if s.decode(req, &p) {
			s.subs.acknowledge(&p)
		}
	case mcp.NotificationCancelled:
		var p mcp.CancelledNotificationParams
		if !s.decode(req, &p) {
			return
		}
		// A modern server cancels only to end a subscription; a legacy one
		// cancels a request it sent us.
		if !s.subs.endByServer(p.RequestID) {
			s.conn.CancelInbound(p.RequestID)
		}
	default:
		s.client.logger.Debug("client: ignoring a notification it does not know", "method", req.Method)
	}
}

// notificationParams is a pointer to a notification's params struct.
type notificationParams[P any] interface {
	*P
	NotificationBase() *mcp.NotificationParams
}

// deliver decodes a list_changed or resources/updated notification and hands
// it to cb. On a modern session the notification must belong to an open
// subscription; any other is dropped.
func deliver[P any, PP notificationParams[P]](ctx context.Context, s *Session, req *jsonrpc.Request, cb func(context.Context, PP)) {
	var p P
	if !s.decode(req, PP(&p)) {
		return
	}
	if s.modern() && !s.subs.open(PP(&p).NotificationBase().Meta) {
		s.client.logger.Debug("client: dropping a notification that belongs to no open subscription", "method", req.Method)
		return
	}
	if cb != nil {
		cb(ctx, PP(&p))
	}
}

// decode decodes a notification's params; malformed ones are logged and
// dropped, as notifications get no answer.
func (s *Session) decode(req *jsonrpc.Request, v any) bool {
	params := req.Params
	if len(params) == 0 {
		params = []byte("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		s.client.logger.Warn("client: dropping a notification with malformed params", "method", req.Method, "error", err)
		return false
	}
	return true
}

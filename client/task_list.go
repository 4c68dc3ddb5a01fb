package client

import (
	"context"
	"fmt"
	"iter"

	"github.com/weftmcp/weft/mcp"
)

// ListTasks returns one page of the tasks a 2025-11-25 server runs for this
// client (tasks/list); params may be nil for the first page. The server
// must have declared tasks.list. The tasks extension of 2026-07-28 has no
// tasks/list (keep the IDs CallToolAsTask returns instead), so a modern
// session gets an error wrapping ErrNotInVersion.
func (s *Session) ListTasks(ctx context.Context, params *mcp.ListTasksParams, opts ...CallOption) ([]*TaskState, string, error) {
	switch v := s.ProtocolVersion(); {
	case s.modern():
		return nil, "", notInVersion(s, mcp.MethodTasksList, "the tasks extension has none; keep the IDs of the tasks you start")
	case !mcp.SupportsTasksV1(v):
		return nil, "", fmt.Errorf("client: %s: %w: %s (tasks arrived in %s)", mcp.MethodTasksList, ErrTaskNotInVersion, v, mcp.Version20251125)
	case s.ServerCapabilities().Tasks == nil || s.ServerCapabilities().Tasks.List == nil:
		return nil, "", fmt.Errorf("client: %s: the server did not declare tasks.list, so it lists no tasks", mcp.MethodTasksList)
	}
	var res mcp.ListTasksResult
	if err := call(ctx, s, mcp.MethodTasksList, params, &res, opts); err != nil {
		return nil, "", err
	}
	states := make([]*TaskState, len(res.Tasks))
	for i := range res.Tasks {
		st, err := legacyState(&res.Tasks[i])
		if err != nil {
			return nil, "", fmt.Errorf("client: %s: %w", mcp.MethodTasksList, err)
		}
		states[i] = st
	}
	return states, res.NextCursor, nil
}

// Tasks iterates over every task a 2025-11-25 server runs for this client,
// following nextCursor from page to page (see ListTasks). An error ends the
// iteration.
func (s *Session) Tasks(ctx context.Context, opts ...CallOption) iter.Seq2[*TaskState, error] {
	pages := paginate(mcp.MethodTasksList, func(cursor string) ([]*TaskState, string, error) {
		return s.ListTasks(ctx, &mcp.ListTasksParams{Cursor: cursor}, opts...)
	})
	return func(yield func(*TaskState, error) bool) {
		for st, err := range pages {
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(*st, nil) {
				return
			}
		}
	}
}

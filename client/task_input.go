package client

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
)

// answer answers the input requests of an input_required task of the
// extension that no Wait has answered yet, and sends the answers with
// tasks/update. tasks/get shows every outstanding request on every poll,
// and the server may show an answered one until the update has taken
// effect, so each key is answered once: keys are claimed before answering
// and released only when answering fails.
func (h *TaskHandle) answer(ctx context.Context, reqs mcp.InputRequests) error {
	fresh := h.claim(reqs)
	if len(fresh) == 0 {
		return nil
	}
	responses, err := h.s.answerInputs(ctx, fresh)
	if err == nil {
		params := &mcp.UpdateTaskParams{TaskID: h.id, InputResponses: responses}
		if err = call(ctx, h.s, mcp.MethodTasksUpdate, params, &mcp.UpdateTaskResult{}, []CallOption{declareTasks}); err != nil {
			err = h.failed(mcp.MethodTasksUpdate, err)
		}
	} else {
		err = fmt.Errorf("client: task %s: %w", h.id, err)
	}
	if err != nil {
		h.unclaim(fresh)
	}
	return err
}

// claim returns the requests whose keys are not yet answered, marking them.
func (h *TaskHandle) claim(reqs mcp.InputRequests) mcp.InputRequests {
	h.mu.Lock()
	defer h.mu.Unlock()
	var fresh mcp.InputRequests
	for key, req := range reqs {
		if h.answered[key] {
			continue
		}
		if h.answered == nil {
			h.answered = make(map[string]bool)
		}
		if fresh == nil {
			fresh = make(mcp.InputRequests)
		}
		h.answered[key] = true
		fresh[key] = req
	}
	return fresh
}

// unclaim releases keys whose answers did not reach the server.
func (h *TaskHandle) unclaim(reqs mcp.InputRequests) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for key := range reqs {
		delete(h.answered, key)
	}
}

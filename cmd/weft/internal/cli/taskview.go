package cli

import (
	stdjson "encoding/json"
	"fmt"
	"io"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// taskView is how a task is printed as JSON: the members of the wire's
// task object, in either era.
type taskView struct {
	TaskID         string             `json:"taskId"`
	Status         mcp.TaskStatus     `json:"status"`
	StatusMessage  string             `json:"statusMessage,omitempty"`
	CreatedAt      string             `json:"createdAt,omitempty"`
	LastUpdatedAt  string             `json:"lastUpdatedAt,omitempty"`
	TTLMs          *int64             `json:"ttlMs,omitzero"`
	PollIntervalMs int64              `json:"pollIntervalMs,omitzero"`
	InputRequests  mcp.InputRequests  `json:"inputRequests,omitempty"`
	Result         stdjson.RawMessage `json:"result,omitzero"`
	Error          *jsonrpc.Error     `json:"error,omitzero"`
}

// viewOf returns the JSON view of a task's state.
func viewOf(st *client.TaskState) taskView {
	v := taskView{
		TaskID:         st.ID,
		Status:         st.Status,
		StatusMessage:  st.StatusMessage,
		CreatedAt:      st.CreatedAt,
		LastUpdatedAt:  st.LastUpdatedAt,
		PollIntervalMs: st.PollInterval.Milliseconds(),
		InputRequests:  st.InputRequests,
		Result:         st.Result,
		Error:          st.Error,
	}
	if st.TTL != nil {
		ms := st.TTL.Milliseconds()
		v.TTLMs = &ms
	}
	return v
}

// printTask prints a task's state: JSON, or a few lines for a person.
func printTask(w io.Writer, human bool, st *client.TaskState) error {
	if !human {
		return printJSON(w, viewOf(st))
	}
	fmt.Fprintf(w, "task %s: %s\n", st.ID, st.Status)
	if st.StatusMessage != "" {
		fmt.Fprintf(w, "  %s\n", st.StatusMessage)
	}
	if st.CreatedAt != "" {
		fmt.Fprintf(w, "  created %s, updated %s\n", st.CreatedAt, st.LastUpdatedAt)
	}
	for key, req := range st.InputRequests {
		fmt.Fprintf(w, "  waiting for input %s (%s)\n", key, req.Method)
	}
	return nil
}

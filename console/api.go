package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// maxScansPerPage bounds the Inventory calls behind one page: a filter
// that matches little examines at most this many scans' worth of tasks
// (20 × tasks.InventoryScan) before the page is served short, with the
// cursor to go on.
const maxScansPerPage = 20

// listPage is the answer of GET api/tasks.
type listPage struct {
	Tasks []row     `json:"tasks"`
	Next  string    `json:"next"`
	Now   time.Time `json:"now"`
}

// serveList answers GET api/tasks?status=&tool=&principal=&cursor=: one
// page of the tasks matching the filter, newest first.
func (c *Console) serveList(w http.ResponseWriter, r *http.Request, _ access) {
	q := r.URL.Query()
	filter := tasks.Filter{Status: tasks.Status(q.Get("status")), Name: q.Get("tool"), Principal: q.Get("principal")}
	if filter.Status != "" && !filter.Status.Valid() {
		problem(w, http.StatusBadRequest, fmt.Sprintf("status %q is not one of working, input_required, completed, failed, cancelled", filter.Status))
		return
	}
	page := listPage{Tasks: []row{}, Next: q.Get("cursor")}
	for scans := 0; scans == 0 || (page.Next != "" && len(page.Tasks) < c.pageSize && scans < maxScansPerPage); scans++ {
		recs, next, err := c.inventory.ListAll(r.Context(), filter, page.Next, c.pageSize-len(page.Tasks))
		if errors.Is(err, tasks.ErrInvalidCursor) {
			problem(w, http.StatusBadRequest, "the cursor is not one this console gave: start again from the first page")
			return
		}
		if err != nil {
			c.storeProblem(w, "listing tasks", err)
			return
		}
		for _, rec := range recs {
			page.Tasks = append(page.Tasks, rowOf(rec))
		}
		page.Next = next
	}
	page.Now = c.now()
	reply(w, page)
}

// serveDetail answers GET api/tasks/{id}: everything about one task.
func (c *Console) serveDetail(w http.ResponseWriter, r *http.Request, _ access) {
	id := r.PathValue("id")
	rec, err := c.store.Get(r.Context(), id)
	if errors.Is(err, tasks.ErrNotFound) {
		problem(w, http.StatusNotFound, fmt.Sprintf("no task %q: it may have expired and been deleted", id))
		return
	}
	if err != nil {
		c.storeProblem(w, "reading the task", err)
		return
	}
	var events []AuditEvent
	if c.audit != nil {
		events = c.audit.Events(id)
	}
	d := detailOf(rec, events)
	d.AuditLocalOnly = c.audit != nil
	reply(w, d)
}

// serveTotals answers GET api/totals.
func (c *Console) serveTotals(w http.ResponseWriter, r *http.Request, _ access) {
	t, _, _, err := c.totals(r.Context())
	if err != nil {
		c.storeProblem(w, "counting tasks", err)
		return
	}
	reply(w, t)
}

// cancel answers POST api/tasks/{id}/cancel: the Runtime cancels the task
// in its owner's name, so that the cancel reaches its handler on whichever
// instance runs it.
func (c *Console) cancel(w http.ResponseWriter, r *http.Request, a access) {
	id := r.PathValue("id")
	rec, err := c.store.Get(r.Context(), id)
	if err == nil {
		_, err = c.rt.Cancel(r.Context(), rec.Principal, id)
	}
	var terminal *tasks.TerminalError
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		problem(w, http.StatusNotFound, fmt.Sprintf("no task %q: it may have expired and been deleted", id))
		return
	case errors.As(err, &terminal):
		problem(w, http.StatusConflict, fmt.Sprintf("the task has already finished (%s); there is nothing to cancel", terminal.Status))
		return
	case err != nil:
		c.storeProblem(w, "cancelling the task", err)
		return
	}
	c.log.Info("console: task cancelled by an operator", slog.String("task_id", id), slog.String("principal", rec.Principal),
		slog.String("operator", a.who), slog.String("remote", r.RemoteAddr))
	if rec, err = c.store.Get(r.Context(), id); err == nil {
		reply(w, rowOf(rec))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// storeProblem answers 503 for a store that failed, and logs it.
func (c *Console) storeProblem(w http.ResponseWriter, doing string, err error) {
	c.log.Warn("console: "+doing, slog.Any("error", err))
	problem(w, http.StatusServiceUnavailable, fmt.Sprintf("%s failed: %v; try again", doing, err))
}

// reply answers 200 with v as JSON.
func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

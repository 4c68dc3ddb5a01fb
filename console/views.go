package console

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// row is a task as a line of the console's table shows it. Every string is
// data for the page to put in as text, never markup.
type row struct {
	ID        string       `json:"id"`
	Method    string       `json:"method"`
	Tool      string       `json:"tool"`
	Principal string       `json:"principal"`
	Status    tasks.Status `json:"status"`
	Message   string       `json:"message"`
	// Progress is the fraction done (0 to 1) read from the status message
	// ("3/10", "slept 3 of 10 seconds", "30%"), when it says.
	Progress *float64  `json:"progress,omitempty"`
	IsError  bool      `json:"isError"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	// Expires is when the task may be deleted; absent for never.
	Expires *time.Time `json:"expires,omitempty"`
	// Owner is the instance holding the lease of an unfinished task.
	Owner string `json:"owner"`
	Runs  int    `json:"runs"`
}

// rowOf makes the table's line for the record.
func rowOf(rec *tasks.Record) row {
	r := row{
		ID: rec.ID, Method: rec.Method, Tool: rec.Name, Principal: rec.Principal,
		Status: rec.Status, Message: rec.StatusMessage, Progress: progressOf(rec.StatusMessage),
		IsError: rec.IsError, Created: rec.CreatedAt, Updated: rec.UpdatedAt, Runs: rec.Runs,
	}
	if rec.Status == tasks.StatusCompleted && r.Progress == nil {
		done := 1.0
		r.Progress = &done
	}
	if !rec.ExpiresAt.IsZero() {
		r.Expires = &rec.ExpiresAt
	}
	if !rec.Status.Terminal() {
		r.Owner = rec.Owner
	}
	return r
}

// progressPattern finds "N/M", "N of M" or "N%" in a status message.
var progressPattern = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:/|of)\s*(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*%`)

// progressOf reads the fraction done from a status message, as the server
// writes progress reports there (progress/total, or the report's message).
func progressOf(message string) *float64 {
	m := progressPattern.FindStringSubmatch(message)
	if m == nil {
		return nil
	}
	var f float64
	if m[3] != "" {
		pct, _ := strconv.ParseFloat(m[3], 64)
		f = pct / 100
	} else {
		done, _ := strconv.ParseFloat(m[1], 64)
		total, _ := strconv.ParseFloat(m[2], 64)
		if total <= 0 {
			return nil
		}
		f = done / total
	}
	f = min(max(f, 0), 1)
	return &f
}

// detail is everything the console shows of one task.
type detail struct {
	row
	Params         string        `json:"params"`
	Rerun          bool          `json:"rerun"`
	MaxRuns        int           `json:"maxRuns"`
	LeaseExpires   *time.Time    `json:"leaseExpires,omitempty"`
	Version        uint64        `json:"version"`
	Inputs         []inputView   `json:"inputs"`
	Result         string        `json:"result,omitempty"`
	Error          *errorView    `json:"error,omitempty"`
	Audit          []AuditEvent  `json:"audit"`
	AuditLocalOnly bool          `json:"auditLocalOnly"`
	PollInterval   time.Duration `json:"pollIntervalNs"`
}

// inputView is one input request and its recorded answer, pretty-printed.
type inputView struct {
	Key      string `json:"key"`
	Request  string `json:"request"`
	Response string `json:"response,omitempty"`
	Answered bool   `json:"answered"`
}

// errorView is a failed task's JSON-RPC error.
type errorView struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

// detailOf makes the detail view of the record, with the audit events.
func detailOf(rec *tasks.Record, audit []AuditEvent) detail {
	d := detail{
		row: rowOf(rec), Params: pretty(rec.Params), Rerun: rec.Policy.Rerun, MaxRuns: rec.Policy.MaxRuns,
		Version: rec.Version, Result: pretty(rec.Result), Audit: audit, PollInterval: rec.PollInterval,
		Inputs: make([]inputView, 0, len(rec.Inputs)),
	}
	if d.Audit == nil {
		d.Audit = []AuditEvent{}
	}
	if !rec.LeaseExpiresAt.IsZero() && !rec.Status.Terminal() {
		d.LeaseExpires = &rec.LeaseExpiresAt
	}
	for _, in := range rec.Inputs {
		d.Inputs = append(d.Inputs, inputView{Key: in.Key, Request: pretty(in.Request), Response: pretty(in.Response), Answered: in.Answered()})
	}
	if rec.Error != nil {
		d.Error = &errorView{Code: int64(rec.Error.Code), Message: rec.Error.Message, Data: pretty(rec.Error.Data)}
	}
	return d
}

// pretty indents raw JSON for reading; "" for none, and the text as it is
// if it does not parse.
func pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

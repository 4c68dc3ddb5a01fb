package redis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// A task's hash holds one field per record field, readable with redis-cli.
// Raw JSON is kept byte for byte; an absent field is a nil (or zero) value,
// so nil and empty stay apart. Times are UTC RFC 3339 with nanoseconds.
const (
	fSeq     = "seq" // creation number, for List; with fVersion what a write checks
	fVersion = "v"
	fToken   = "w" // the token of the write that made this version (write_tokens.go)

	// Identity, written once by Create.
	fPrincipal = "principal"
	fMethod    = "method"
	fName      = "name"
	fParams    = "params"
	fRerun     = "rerun"
	fMaxRuns   = "max_runs"
	fCreated   = "created_at"

	// Mutable, always present.
	fStatus  = "status"
	fMessage = "status_message"
	fPoll    = "poll_interval_ns"
	fOwner   = "owner"
	fRuns    = "runs"
	fInputs  = "inputs" // how many input requests; each is in fields "input.<i>.key|request|response"

	// Mutable, present only when set.
	fUpdated = "updated_at"
	fExpires = "expires_at"
	fLease   = "lease_expires_at"
	fResult  = "result"
	fIsError = "is_error"
	fErrCode = "error_code"
	fErrMsg  = "error_message"
	fErrData = "error_data"
)

// inputField names a field of the input request at index i.
func inputField(i int, part string) string {
	return "input." + strconv.Itoa(i) + "." + part
}

// recordSize estimates the bytes of rec's fields in a field list.
func recordSize(rec *tasks.Record) int {
	n := 400 + len(rec.Principal) + len(rec.Method) + len(rec.Name) + len(rec.Params) + len(rec.StatusMessage) +
		len(rec.Owner) + len(rec.Result)
	if e := rec.Error; e != nil {
		n += len(e.Message) + len(e.Data)
	}
	for _, in := range rec.Inputs {
		n += 40 + len(in.Key) + len(in.Request) + len(in.Response)
	}
	return n
}

// identityFields appends the fields Create writes once.
func identityFields(l *fieldList, rec *tasks.Record) {
	l.add(fPrincipal, rec.Principal)
	l.add(fMethod, rec.Method)
	l.add(fName, rec.Name)
	l.add(fRerun, boolString(rec.Policy.Rerun))
	l.addInt(fMaxRuns, int64(rec.Policy.MaxRuns))
	if rec.Params != nil {
		l.addRaw(fParams, rec.Params)
	}
	if !rec.CreatedAt.IsZero() {
		l.addTime(fCreated, rec.CreatedAt)
	}
}

// mutableFields appends to set the mutable fields rec has, and to unset
// (when not nil) the names of the optional ones it has not, to delete.
func mutableFields(set, unset *fieldList, rec *tasks.Record) {
	set.add(fStatus, string(rec.Status))
	set.add(fMessage, rec.StatusMessage)
	set.addInt(fPoll, int64(rec.PollInterval))
	set.add(fOwner, rec.Owner)
	set.addInt(fRuns, int64(rec.Runs))
	set.addInt(fInputs, int64(len(rec.Inputs)))
	absent := func(name string) {
		if unset != nil {
			unset.str(name)
		}
	}
	times := []struct {
		name string
		at   time.Time
	}{{fUpdated, rec.UpdatedAt}, {fExpires, rec.ExpiresAt}, {fLease, rec.LeaseExpiresAt}}
	for _, t := range times {
		if t.at.IsZero() {
			absent(t.name)
		} else {
			set.addTime(t.name, t.at)
		}
	}
	if rec.Result != nil {
		set.addRaw(fResult, rec.Result)
	} else {
		absent(fResult)
	}
	if rec.IsError {
		set.add(fIsError, "1")
	} else {
		absent(fIsError)
	}
	if e := rec.Error; e != nil {
		set.addInt(fErrCode, e.Code)
		set.add(fErrMsg, e.Message)
		if e.Data != nil {
			set.addRaw(fErrData, e.Data)
		} else {
			absent(fErrData)
		}
	} else {
		absent(fErrCode)
		absent(fErrMsg)
		absent(fErrData)
	}
	for i, in := range rec.Inputs {
		set.add(inputField(i, "key"), in.Key)
		if in.Request != nil {
			set.addRaw(inputField(i, "request"), in.Request)
		}
		if in.Response != nil {
			set.addRaw(inputField(i, "response"), in.Response)
		}
	}
}

// decodeRecord rebuilds a record, and its creation number, from its hash.
func decodeRecord(id string, h map[string]string) (*tasks.Record, int64, error) {
	d := decoder{h: h}
	rec := &tasks.Record{
		ID:             id,
		Principal:      h[fPrincipal],
		Method:         h[fMethod],
		Name:           h[fName],
		Params:         d.raw(fParams),
		Policy:         tasks.Policy{Rerun: h[fRerun] == "1", MaxRuns: int(d.int(fMaxRuns))},
		Status:         tasks.Status(h[fStatus]),
		StatusMessage:  h[fMessage],
		CreatedAt:      d.time(fCreated),
		UpdatedAt:      d.time(fUpdated),
		ExpiresAt:      d.time(fExpires),
		PollInterval:   time.Duration(d.int(fPoll)),
		Result:         d.raw(fResult),
		IsError:        h[fIsError] == "1",
		Owner:          h[fOwner],
		LeaseExpiresAt: d.time(fLease),
		Runs:           int(d.int(fRuns)),
		Version:        uint64(d.int(fVersion)),
	}
	if _, ok := h[fErrCode]; ok {
		rec.Error = &jsonrpc.Error{Code: d.int(fErrCode), Message: h[fErrMsg], Data: d.raw(fErrData)}
	}
	if n := d.int(fInputs); n > 0 {
		rec.Inputs = make([]tasks.Input, n)
		for i := range rec.Inputs {
			rec.Inputs[i] = tasks.Input{
				Key:      h[inputField(i, "key")],
				Request:  d.raw(inputField(i, "request")),
				Response: d.raw(inputField(i, "response")),
			}
		}
	}
	seq := d.int(fSeq)
	if d.err != nil {
		return nil, 0, fmt.Errorf("redis: task %s is stored in a form this store cannot read: %w", id, d.err)
	}
	return rec, seq, nil
}

// decoder reads typed fields, keeping the first error.
type decoder struct {
	h   map[string]string
	err error
}

func (d *decoder) int(name string) int64 {
	s, ok := d.h[name]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("field %s: %w", name, err)
	}
	return n
}

func (d *decoder) time(name string) time.Time {
	s, ok := d.h[name]
	if !ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("field %s: %w", name, err)
	}
	return t
}

func (d *decoder) raw(name string) json.RawMessage {
	s, ok := d.h[name]
	if !ok {
		return nil
	}
	return json.RawMessage(s)
}

// formatTime writes t as a field value.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// boolString writes b as a field value.
func boolString(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// checkTimes fails for a record with a time a field cannot hold in order.
func checkTimes(rec *tasks.Record) error {
	for _, t := range []time.Time{rec.CreatedAt, rec.UpdatedAt, rec.ExpiresAt, rec.LeaseExpiresAt} {
		if y := t.UTC().Year(); !t.IsZero() && (y < 1 || y > 9999) {
			return fmt.Errorf("redis: task %s has the time %s, outside the years 1 to 9999 the store can keep", rec.ID, t)
		}
	}
	return nil
}

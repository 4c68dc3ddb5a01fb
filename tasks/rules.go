package tasks

import (
	"bytes"
	"errors"
	"fmt"
)

// CheckCreate enforces the rules for a record about to be created: it has an
// ID, starts working, and carries no outcome and no input yet. Store drivers
// call it at the start of Create.
func CheckCreate(rec *Record) error {
	switch {
	case rec.ID == "":
		return fmt.Errorf("%w: the record has no task ID", ErrInvalidUpdate)
	case rec.Status != StatusWorking:
		return fmt.Errorf("%w: a task must start %q, not %q", ErrInvalidUpdate, StatusWorking, rec.Status)
	case rec.Result != nil || rec.Error != nil || rec.IsError:
		return fmt.Errorf("%w: a new task cannot carry a result or an error", ErrInvalidUpdate)
	case len(rec.Inputs) != 0:
		return fmt.Errorf("%w: a new task cannot carry input requests", ErrInvalidUpdate)
	}
	return nil
}

// CheckUpdate enforces the rules for replacing stored with next. Store drivers
// call it inside the atomic section of Update, against the record as stored:
//
//   - a terminal task never changes (a *TerminalError naming its status),
//     whatever the version: a late cancel never overwrites a result and a
//     late result never overwrites a cancel;
//   - next.Version must equal the stored version (ErrConflict);
//   - the status change must be one CanTransition allows;
//   - the outcome must fit the status: completed has a result and no error,
//     failed has an error and no result, other statuses have neither;
//   - inputs only grow: recorded keys and requests stay as they are, a
//     recorded response never changes, and new keys are non-empty and unique.
func CheckUpdate(stored, next *Record) error {
	if stored.Status.Terminal() {
		return &TerminalError{TaskID: stored.ID, Status: stored.Status}
	}
	if next.Version != stored.Version {
		return fmt.Errorf("%w: task %s is at version %d but the update was based on version %d",
			ErrConflict, stored.ID, stored.Version, next.Version)
	}
	if !CanTransition(stored.Status, next.Status) {
		return fmt.Errorf("%w: task %s cannot go from %q to %q", ErrInvalidUpdate, stored.ID, stored.Status, next.Status)
	}
	if err := checkOutcome(next); err != nil {
		return fmt.Errorf("%w: task %s: %s", ErrInvalidUpdate, stored.ID, err)
	}
	if err := checkInputs(stored.Inputs, next.Inputs); err != nil {
		return fmt.Errorf("%w: task %s: %s", ErrInvalidUpdate, stored.ID, err)
	}
	return nil
}

// checkOutcome verifies that the result and error fields fit the status.
func checkOutcome(rec *Record) error {
	switch rec.Status {
	case StatusCompleted:
		if rec.Result == nil || rec.Error != nil {
			return fmt.Errorf("a completed task needs a result and no error")
		}
	case StatusFailed:
		if rec.Error == nil || rec.Result != nil || rec.IsError {
			return fmt.Errorf("a failed task needs a JSON-RPC error and no result")
		}
	default:
		if rec.Result != nil || rec.Error != nil || rec.IsError {
			return fmt.Errorf("a %s task cannot carry a result or an error", rec.Status)
		}
	}
	return nil
}

// checkInputs verifies that next only appends requests and fills in answers.
func checkInputs(stored, next []Input) error {
	if len(next) < len(stored) {
		return fmt.Errorf("input requests cannot be removed (%d recorded, %d in the update)", len(stored), len(next))
	}
	seen := make(map[string]bool, len(next))
	for i, in := range next {
		if i < len(stored) {
			old := stored[i]
			if in.Key != old.Key || !bytes.Equal(in.Request, old.Request) {
				return fmt.Errorf("recorded input request %q cannot be rewritten", old.Key)
			}
			if old.Answered() && !bytes.Equal(in.Response, old.Response) {
				return fmt.Errorf("the recorded answer to input request %q cannot be changed", old.Key)
			}
		}
		if in.Key == "" {
			return fmt.Errorf("input request %d has an empty key", i)
		}
		if seen[in.Key] {
			return fmt.Errorf("input key %q is used twice; keys are unique for the task's life", in.Key)
		}
		seen[in.Key] = true
	}
	return nil
}

// NewAnswers returns the positions of the inputs that next answers and
// stored had left unanswered: after CheckUpdate, with the inputs next
// appends (next.Inputs[len(stored.Inputs):]), all a driver that keeps
// inputs apart from the record has to write.
func NewAnswers(stored, next *Record) []int {
	var answered []int
	for pos, in := range stored.Inputs {
		if !in.Answered() && next.Inputs[pos].Answered() {
			answered = append(answered, pos)
		}
	}
	return answered
}

// IsRuleError reports whether err is one of the errors of the task rules
// that a Store returns as they are (ErrNotFound, ErrExists, ErrConflict, a
// *TerminalError, ErrInvalidUpdate, a *LimitError), rather than wrapped in
// its own account of what failed.
func IsRuleError(err error) bool {
	for _, target := range []error{ErrNotFound, ErrExists, ErrConflict, ErrTerminal, ErrInvalidUpdate, ErrLimit} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

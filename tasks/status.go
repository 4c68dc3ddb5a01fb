package tasks

// Status is where a task is in its life. The values are the wire strings both
// MCP task surfaces use.
type Status string

// The five task statuses. A task starts Working; Completed, Failed and
// Cancelled are terminal.
const (
	StatusWorking       Status = "working"
	StatusInputRequired Status = "input_required"
	StatusCompleted     Status = "completed"
	StatusFailed        Status = "failed"
	StatusCancelled     Status = "cancelled"
)

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Terminal reports whether s is completed, failed or cancelled: a status a
// task never leaves.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// CanTransition reports whether a task may go from one status to another.
// Working and input_required alternate freely (and may be rewritten in place,
// for a new status message or lease); either may end in a terminal status;
// a terminal status allows nothing.
func CanTransition(from, to Status) bool {
	if !to.Valid() {
		return false
	}
	switch from {
	case StatusWorking, StatusInputRequired:
		return true
	}
	return false
}

package tasks

import "time"

// Observer receives the Runtime's metrics as they happen, for whatever
// counters and gauges the application keeps. Calls come from many
// goroutines and must not block. Embed NopObserver to implement only some.
type Observer interface {
	// TaskTransition reports a status change this instance wrote: from is ""
	// when the task was created, to is "" when it was deleted. Summed over
	// all instances, the changes give the number of tasks in each status.
	TaskTransition(from, to Status)
	// LeaseRenewed reports a successful heartbeat for one task.
	LeaseRenewed()
	// LeaseLost reports a lease that lapsed: seen by the instance that lost
	// it, or by the instance that recovered the task.
	LeaseLost()
	// StoreCall reports one Store call: its operation name (the method
	// name), how long it took, and its error.
	StoreCall(op string, elapsed time.Duration, err error)
}

// NopObserver ignores everything; it is the default Observer.
type NopObserver struct{}

// TaskTransition implements Observer.
func (NopObserver) TaskTransition(from, to Status) {}

// LeaseRenewed implements Observer.
func (NopObserver) LeaseRenewed() {}

// LeaseLost implements Observer.
func (NopObserver) LeaseLost() {}

// StoreCall implements Observer.
func (NopObserver) StoreCall(op string, elapsed time.Duration, err error) {}

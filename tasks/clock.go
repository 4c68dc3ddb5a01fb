package tasks

import "time"

// Clock supplies the wall time the Runtime records (createdAt,
// lastUpdatedAt) and compares against TTLs and leases. Tests inject one to
// move time on; tickers and throttles always use real time.
type Clock interface {
	Now() time.Time
}

// systemClock is the real clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

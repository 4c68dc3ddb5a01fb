package tasks

import "time"

// The poll interval a Runtime suggests follows how the task is going, so a
// client that honours it polls often while something is likely to change
// and seldom once the task has settled into long work:
//
//   - a task just created, or whose status, message or input just
//     changed, gets the minimum (WithMinPollInterval), since short tasks
//     finish within a few polls;
//   - the interval then grows with the time since that last change (half
//     of it) and with the task's age (a twentieth of it), whichever is
//     longer, so a task reporting progress often but running for long is
//     still polled less and less;
//   - it never exceeds the maximum (WithPollInterval, recorded on the task
//     when it was created).
//
// A client that ignores it costs the store nothing more while the task is
// unchanged: reads come from the record cache.

// view returns the task as the Runtime shows it at now.
func (r *Runtime) view(rec *Record) Task {
	t := taskOf(rec)
	t.PollInterval = suggestPoll(rec, r.now(), r.cfg.minPollInterval)
	return t
}

// suggestPoll returns the poll interval to suggest for the record at now.
func suggestPoll(rec *Record, now time.Time, minimum time.Duration) time.Duration {
	maximum := rec.PollInterval
	if rec.Status.Terminal() || minimum >= maximum {
		return maximum
	}
	quiet, age := now.Sub(rec.UpdatedAt), now.Sub(rec.CreatedAt)
	return min(max(quiet/2, age/20, minimum), maximum)
}

package redis

import (
	"strconv"
	"time"
)

// keys names everything a Store or Bus keeps in Redis. Every name starts
// with the hash tag {prefix}.
type keys struct {
	task    string // + task ID: the task's hash
	seq     string // the counter that numbers tasks in creation order
	list    string // + principal: sorted set of the principal's task IDs by number
	all     string // sorted set of every task ID by number, for the console
	expiry  string // sorted set of expiryMember by ExpiresAt (ms)
	lease   string // sorted set of unfinished, owned task IDs by LeaseExpiresAt (ms)
	active  string // sorted set of unfinished task IDs by key deadline (ms)
	actives string // + principal: the same, per principal
	signals string // the Bus's pub/sub channel
	reply   string // + write token: a script's kept reply (kept_replies.go)

	session     string // + session ID: the session's hash (+ ":subs": its subscriptions' set; + ":box<n>…" and ":reader": its message log's keys, which expireSessionsScript names too)
	sessions    string // sorted set of session IDs by LastSeen (ms)
	subscribers string // + URI: sorted set (scores 0, by ID) of the live sessions subscribed to it
	stateKey    string // the request-state key every instance shares
}

func newKeys(prefix string) keys {
	tag := "{" + prefix + "}:"
	return keys{
		task:    tag + "task:",
		seq:     tag + "seq",
		list:    tag + "list:",
		all:     tag + "all",
		expiry:  tag + "expiry",
		lease:   tag + "lease",
		active:  tag + "active",
		actives: tag + "active:",
		signals: tag + "signals",
		reply:   tag + "reply:",

		session:     tag + "session:",
		sessions:    tag + "sessions",
		subscribers: tag + "subscribers:",
		stateKey:    tag + "state-key",
	}
}

// constArgs are the values every write script takes that stay the same
// for a Store: its constant keys, its signal channel and its expiry grace,
// each boxed once, so that a write's command holds them without an
// allocation each (see evalSHA).
type constArgs struct {
	seq, all, expiry, lease, active, signals any
	grace                                    any // in milliseconds, as the scripts take it
}

// newConstArgs returns the constant arguments of a Store.
func newConstArgs(k keys, grace time.Duration) constArgs {
	return constArgs{seq: k.seq, all: k.all, expiry: k.expiry, lease: k.lease, active: k.active, signals: k.signals,
		grace: strconv.FormatInt(grace.Milliseconds(), 10)}
}

// expiryMember is a task's member in the expiry set: its ID and principal,
// so that a task whose key Redis expired by itself can be taken out of the
// principal's sets too. The length prefix keeps any ID and principal apart.
func expiryMember(id, principal string) string {
	return strconv.Itoa(len(id)) + ":" + id + principal
}

// ceilMillis returns t in Unix milliseconds, rounded up: a deadline's
// score, never earlier than the deadline, and the bound the listings
// compare scores with, never missing a deadline that is due.
func ceilMillis(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Sub(time.UnixMilli(ms)) > 0 {
		ms++
	}
	return ms
}

// scoreArg formats a score for a script: "" for none.
func scoreArg(t time.Time, ok bool) string {
	if !ok {
		return ""
	}
	return strconv.FormatInt(ceilMillis(t), 10)
}

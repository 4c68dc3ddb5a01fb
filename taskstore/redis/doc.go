// Package redis is a tasks.Store and a tasks.Bus on Redis, for many weft
// instances behind a load balancer sharing one Redis (github.com/redis/go-redis/v9).
//
// The Store keeps each task as a hash, indexed by sorted sets: one per
// principal for List, one each for expiry and lease deadlines, and the
// unfinished tasks per principal and in all for the quota. Every write is
// one Lua script, so a record and its indexes change together; the task
// rules themselves (tasks.CheckUpdate) run in Go against the exact stored
// version the script then re-checks. The Bus carries signals on one pub/sub
// channel. A Store and a Bus on the same client and prefix pair up
// (tasks.SignallingStore): the write's script publishes its signal, so a
// write and its signal are one round trip, not two. Writes made while
// others are in flight go together in one pipeline: at 32 tasks in flight,
// a task's life costs 0.15 round trips instead of 2.
//
// All keys share one hash tag, {prefix}, so on Redis Cluster they live on
// one node and the scripts stay atomic.
package redis

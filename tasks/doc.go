// Package tasks is weft's task engine: durable, cancellable, pollable
// requests that survive restarts and run across many server instances.
//
// It knows nothing of the wire. The server (and client) packages adapt it to
// both MCP task surfaces: the 2025-11-25 experimental tasks and the SEP-2663
// io.modelcontextprotocol/tasks extension.
//
// # Drivers and runtime
//
// As with database/sql, a small driver interface carries the state and a
// rich Runtime sits on top:
//
//   - Store keeps task Records: durable Create, compare-and-swap Update on a
//     version, final terminal states (enforced by the store through
//     CheckUpdate), keyed input requests and answers, List by principal with
//     an opaque cursor, and the listings the expiry and lease sweeps need.
//   - Bus carries wake-up Signals between instances: a cancel, an answer, a
//     status change. The store stays the truth; signals only say "look again".
//   - A Store whose writes can send their own signals on its driver's Bus
//     (SignallingStore: Redis) saves the Runtime a round trip per write.
//
// NewMemoryStore and NewMemoryBus are the in-process drivers. Others (SQLite,
// Redis) live in their own modules and prove themselves with the contract
// kit in tasks/storetest.
//
// # Life of a task
//
// Runtime.Start records a task as working, visible to every instance before
// it returns, and runs the HandlerFunc registered for its method and name.
// The only transitions are working ⇄ input_required and from either to
// completed, failed or cancelled; a finished task never changes. The handler
// can call Exec.Ask for input (the task is input_required until
// Runtime.Answer, on any instance, supplies every outstanding answer) and
// Exec.Progress for a throttled statusMessage. Cancel makes the task
// cancelled at once and stops the handler wherever it runs; its late result
// is discarded. Get, List, Wait and Watch read it.
//
// Reading a task costs no store round trip while it has not changed since
// this instance last read or wrote it: a record cache, kept fresh by the
// Bus's signals (WithRecordCache), answers back-to-back polls and repeated
// requests for a result. Each read suggests a poll interval from how the
// task is going (short when it is new or has just changed, growing while
// it does not). A StartRequest's Follow hears of every change the instance
// running the task makes or sees, with no goroutine or read per task.
//
// Every task belongs to a principal. Another principal's task, an expired
// task and a missing one all give the same ErrNotFound. Task IDs carry at
// least 128 bits from crypto/rand.
//
// # What adapters decide
//
// The engine stores facts; each wire surface renders them:
//
//   - A tool result with isError: true completes the task with
//     Task.IsError set. The legacy surface reports such a task "failed" (and
//     tasks/result still returns the result); the extension reports it
//     "completed" with the result inlined.
//   - A failed task always carries a JSON-RPC error (Task.Error): the one
//     the handler returned, or -32603 for any other failure. The legacy
//     tasks/result returns it; the extension inlines it.
//   - Cancel of a finished task returns a *TerminalError: the legacy
//     tasks/cancel answers -32602, the extension acknowledges.
//   - ErrNotFound and ErrInvalidCursor are -32602 on both surfaces.
//   - Outstanding input requests (Task.InputRequests) are shown by the
//     extension's tasks/get and sent by the legacy adapter on the
//     tasks/result stream; both feed answers to Runtime.Answer.
//
// # Many instances
//
// Runtimes sharing a Store and a Bus form a cluster. The instance running a
// task holds an execution lease and renews it every heartbeat; every
// instance sweeps for lapsed leases and applies the task's Policy: fail it
// with a statusMessage saying its worker was lost, or (for handlers that
// declare themselves safe to repeat) run it again, replaying recorded
// answers. Every instance also sweeps expired tasks: it cancels the running
// ones, then deletes them. Concurrency limits (WithLimits) are enforced by
// the store across the cluster.
//
// Audit events (created, input requested, input answered, cancelled,
// completed, failed, expired, re-run, lease lost) go to the log/slog logger
// with the task ID and principal; an Observer receives metrics.
package tasks

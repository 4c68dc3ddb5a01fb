package redis

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/internal/groupwrite"
)

// Grouped writes. A Store's task creations and updates run their scripts
// through a groupWriter: a script run made while another group is in
// flight waits for it, then goes with every run that waited meanwhile in
// one pipeline: one round trip, one write and one read on the socket for
// them all, instead of one connection taken from the pool and one round
// trip each. A lone run goes at once, so nothing waits at 1 in flight.
// Each script stays atomic on its own and keeps its own outcome: a
// pipeline is not a transaction, and one script's refusal or error leaves
// the others as they are. At 32 in flight, BenchmarkPolledTaskLife in
// three interleaved pairs: 2.02 round trips a life → 0.15, weft's CPU a
// life 98–144 µs → 71–106 µs (medians 127 → 81); in the harness, Redis's
// own CPU a life fell from 149–210 µs to 96–117 µs.

// maxGroup bounds the script runs one pipeline carries, so that a run
// queued behind a long pipeline waits for at most that many.
const maxGroup = 256

// groupTimeout bounds a pipeline of runs that waited, which carries other
// callers' writes and so cannot end with one caller's context.
const groupTimeout = 10 * time.Second

// scriptRun is one caller's run of a write script, and its outcome.
type scriptRun struct {
	script *redis.Script
	cmd    []any // the EVALSHA command, as evalSHA begins it

	res any
	err error
}

// evalSHA begins the EVALSHA command that runs script, whose n keys and
// then arguments the caller appends (size of them, for the capacity). A
// write builds its command itself, rather than go-redis's EvalSha copying
// keys and arguments into one of its own: with the constant keys boxed
// once per Store (constArgs), that took a polled Redis life at 32 in
// flight from 127 to 107 allocations, 9.0 to 8.1 KB
// (BenchmarkPolledTaskLife).
func evalSHA(script *redis.Script, n, size int) []any {
	cmd := make([]any, 3, 3+size)
	cmd[0], cmd[1], cmd[2] = "evalsha", script.Hash(), n
	return cmd
}

// groupWriter runs a Store's write scripts, several in one pipeline when
// they come together (see groupwrite).
type groupWriter struct {
	client redis.UniversalClient
	*groupwrite.Writer[*scriptRun]
}

func newGroupWriter(client redis.UniversalClient) *groupWriter {
	g := &groupWriter{client: client}
	g.Writer = groupwrite.New(maxGroup, groupTimeout, g.send)
	return g
}

// run runs cmd, an EVALSHA command of script (see evalSHA), at once if no
// pipeline is in flight, else in the pipeline after it, and returns its
// reply. If ctx ends while the run still waits, it is dropped and run
// returns ctx's cause.
func (g *groupWriter) run(ctx context.Context, script *redis.Script, cmd []any) (any, error) {
	r := &scriptRun{script: script, cmd: cmd}
	if err := g.Write(ctx, r); err != nil {
		return nil, err
	}
	return r.res, r.err
}

// send runs group's scripts, several in one pipeline, and sets each one's
// reply. A script Redis does not hold yet (NOSCRIPT, after a restart or a
// SCRIPT FLUSH) is loaded and run again alone.
func (g *groupWriter) send(ctx context.Context, group []*scriptRun) {
	if len(group) == 1 {
		r := group[0]
		r.res, r.err = g.client.Do(ctx, r.cmd...).Result()
	} else {
		pipe := g.client.Pipeline()
		cmds := make([]*redis.Cmd, len(group))
		for i, r := range group {
			cmds[i] = pipe.Do(ctx, r.cmd...)
		}
		_, _ = pipe.Exec(ctx) // each command holds its own outcome
		for i, r := range group {
			r.res, r.err = cmds[i].Result()
		}
	}
	for _, r := range group {
		// HasErrorPrefix allocates even for a nil error (2 allocations of
		// a polled life, BenchmarkPolledTaskLife): ask only on an error.
		if r.err != nil && redis.HasErrorPrefix(r.err, "NOSCRIPT") {
			if r.err = r.script.Load(ctx, g.client).Err(); r.err == nil {
				r.res, r.err = g.client.Do(ctx, r.cmd...).Result()
			}
		}
	}
}

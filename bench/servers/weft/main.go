// Command weft is the benchmark's one-tool echo server built on weft, used as
// its documentation shows: a typed tool added with server.AddTool (input
// schema derived from the argument struct and checked on every call).
//
// It serves stdio by default and Streamable HTTP at /mcp with -http ADDR
// (streamable.NewHandler, which answers with JSON when nothing comes before
// the response). Flags add what other rows measure:
//
//   - -store KIND (memory, sqlite, redis, postgres; with -store-at and
//     -store-scope, see package stores) gives it a task runtime on that
//     store, and echo may run as a task (task support optional);
//   - -shared-sessions keeps legacy HTTP sessions in that store's session
//     store (streamable.HandlerOptions.Sessions) instead of in memory, and
//     -tasks=false leaves the task runtime out;
//   - -store-stats FILE appends the round trips made so far to that store,
//     the background ones apart, and the HTTP requests begun, to FILE on
//     each SIGUSR1 (see reportRoundTrips);
//   - -otel sampled-out|recording instruments it with OpenTelemetry.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/weftmcp/weft/bench/internal/servermain"
	"github.com/weftmcp/weft/bench/internal/stores"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// echoArgs is the echo tool's input.
type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

// echo returns the text it is given as the call's only content.
func echo(_ context.Context, _ *server.Request, args echoArgs) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: args.Text}}}, nil
}

// newServer returns the weft server holding the echo tool, with opts; with
// a task runtime in opts, echo may run as a task on it.
func newServer(opts *server.Options) *server.Server {
	s := server.New(mcp.Implementation{Name: "weft-echo", Version: "1.0.0"}, opts)
	tool := &mcp.Tool{Name: "echo", Description: "Returns the text it is given."}
	if opts.Tasks == nil {
		server.AddTool(s, tool, echo)
	} else {
		server.AddTool(s, tool, echo, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))
	}
	return s
}

func main() {
	var (
		storeKind  = flag.String("store", "", "run a task runtime on this store (memory, sqlite, redis, postgres) and let echo run as a task")
		storeAt    = flag.String("store-at", "", "the SQLite file, Redis URL or PostgreSQL connection string of -store")
		storeScope = flag.String("store-scope", "", "the Redis key prefix or PostgreSQL schema of -store")
		shared     = flag.Bool("shared-sessions", false, "keep legacy HTTP sessions in the session store of -store (redis, postgres, sqlite)")
		withTasks  = flag.Bool("tasks", true, "with -store, run a task runtime on it; -tasks=false opens the store for -shared-sessions alone, "+
			"so no runtime's background work reaches the store")
		statsFile = flag.String("store-stats", "", "on each SIGUSR1, append the round trips made so far to the store of -store (all, the background ones) and the HTTP requests begun to this file (Redis only)")
		tracing   = flag.String("otel", "none", "OpenTelemetry tracing: none, sampled-out (a tracer that samples nothing) or recording (every span recorded)")
	)
	// Warnings and errors only: the task runtime writes an audit event per
	// task state change at Info level, which would measure stderr writes.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var (
		opts      = &server.Options{Logger: logger}
		store     *stores.Opened
		stopOTel  = func(context.Context) error { return nil }
		stopTrips = func() {}
		served    = &servedRequests{}
		httpOpts  = &streamable.HandlerOptions{MaxSessionsPerClient: -1, Logger: logger}
	)
	servermain.Main(servermain.Server{
		Name: "weft",
		Setup: func() error {
			var err error
			if stopOTel, err = instrument(*tracing, opts); err != nil {
				return err
			}
			if *storeKind == "" {
				if *shared {
					return errors.New("-shared-sessions needs -store")
				}
				return nil
			}
			if store, err = stores.Open(context.Background(), *storeKind, *storeAt, *storeScope); err != nil {
				return err
			}
			if stopTrips, err = reportRoundTrips(*statsFile, store, served); err != nil {
				return errors.Join(err, store.Close())
			}
			if !*withTasks && !*shared {
				return errors.Join(errors.New("-tasks=false leaves -store nothing to do without -shared-sessions"), store.Close())
			}
			if *withTasks {
				if opts.Tasks, err = tasks.New(store.Store, store.Bus, tasks.WithLogger(logger)); err != nil {
					return errors.Join(fmt.Errorf("start the task runtime: %w", err), store.Close())
				}
			}
			if *shared {
				if store.Sessions == nil {
					return fmt.Errorf("-store %s keeps no sessions; -shared-sessions needs sqlite, redis or postgres", *storeKind)
				}
				httpOpts.Sessions = store.Sessions
			}
			return nil
		},
		Stdio: func(ctx context.Context) error {
			return newServer(opts).Run(ctx, transport.Stdio())
		},
		HTTP: func() http.Handler {
			// The harness opens all its sessions (1000 idle ones for the
			// memory figure) from one address.
			return served.count(streamable.NewHandler(newServer(opts), httpOpts))
		},
		Teardown: func(ctx context.Context) error {
			var errs []error
			if opts.Tasks != nil {
				errs = append(errs, opts.Tasks.Close(ctx))
			}
			stopTrips()
			if store != nil {
				errs = append(errs, store.Close())
			}
			return errors.Join(append(errs, stopOTel(ctx))...)
		},
	})
}

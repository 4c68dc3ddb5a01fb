package main

import (
	"fmt"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// bound is one of weft's defaults that limits what a run, or a deployment
// measured like it, can do.
type bound struct {
	Name, Value, Effect string
}

// bounds lists weft's defaults that bound a run, read from the code being
// measured, so the report cannot drift from it.
func bounds() []bound {
	return []bound{
		{"`streamable.DefaultMaxSessions`", fmt.Sprint(streamable.DefaultMaxSessions),
			"live legacy HTTP sessions per handler; an initialize beyond it gets 503. Not reached: a row opens one session, the idle-session figure " +
				"opens `-sessions` (keep it below this)."},
		{"`streamable.DefaultMaxSessionsPerClient`", fmt.Sprint(streamable.DefaultMaxSessionsPerClient),
			"live legacy HTTP sessions per client (principal or remote address); beyond it, 429. The bench server lifts it " +
				"(`MaxSessionsPerClient: -1`) since every session comes from 127.0.0.1; a deployment keeps it."},
		{"`streamable.DefaultSessionIdleTimeout`", streamable.DefaultSessionIdleTimeout.String(),
			"an idle legacy session ends after this; no row lasts so long."},
		{"`jsonrpc.DefaultMaxInFlight`", fmt.Sprint(jsonrpc.DefaultMaxInFlight),
			"requests a connection (a stdio session, a legacy HTTP session) serves at once; the rows run at most 32."},
		{"`jsonrpc.DefaultMaxMessageSize`", formatBytes(jsonrpc.DefaultMaxMessageSize), "the largest message; echo's are tiny."},
		{"`tasks.DefaultMaxTasksPerPrincipal`", fmt.Sprint(tasks.DefaultMaxTasksPerPrincipal),
			"unfinished tasks of one principal; the task rows keep at most 32 unfinished."},
		{"`tasks.DefaultMaxTasks`", fmt.Sprint(tasks.DefaultMaxTasks), "unfinished tasks of everyone on the store."},
		{"`tasks.DefaultTTL`", tasks.DefaultTTL.String(),
			"how long a finished task is kept when the client asks for no TTL (the harness asks for none): every task of a row " +
				"stays in its store until the row's server stops, so the stores grow through the window."},
		{"`tasks.DefaultPollInterval`", tasks.DefaultPollInterval.String(),
			"the pollInterval suggested to clients; the harness ignores it and polls back to back, the worst case a server must survive."},
		{"`tasks.DefaultPollPacing`", tasks.DefaultPollPacing.String(),
			"a `tasks/get` of an unfinished task unchanged since this server's last answer about it (a poll's, or the call creating it), " +
				"less than this before, is answered when the task changes or the interval ends: the harness's back-to-back polls are held " +
				"by it, which the polls/task column shows."},
		{"`tasks.DefaultLease` / `DefaultHeartbeat` / `DefaultSweepInterval`",
			tasks.DefaultLease.String() + " / " + tasks.DefaultHeartbeat.String() + " / " + tasks.DefaultSweepInterval.String(),
			"background store traffic of a runtime, the same in every row."},
	}
}

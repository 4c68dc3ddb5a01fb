// Package server is a complete MCP server: registries of tools, resources,
// resource templates, prompts and completions, served to clients of every
// protocol version — the legacy era (2024-11-05 … 2025-11-25: initialize
// handshake, sessions, server-to-client requests) and the modern era
// (2026-07-28: stateless requests carrying their own _meta, server/discover,
// subscriptions/listen, multi round-trip input) — on the same connection
// (Server.Connect) and one request at a time for HTTP (Server.ServeRequest).
// A *Server is what the HTTP transports serve: streamable.NewHandler(s, nil)
// and sse.NewHandler(s, nil).
//
// A tool is an ordinary typed Go function; its JSON Schemas are derived from
// its argument and result types, and arguments are validated before it runs:
//
//	type GreetIn struct {
//		Name string `json:"name" jsonschema:"who to greet"`
//	}
//	type GreetOut struct {
//		Greeting string `json:"greeting"`
//	}
//
//	func main() {
//		s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
//		server.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone"},
//			func(ctx context.Context, req *server.Request, in GreetIn) (GreetOut, error) {
//				return GreetOut{Greeting: "Hello, " + in.Name + "!"}, nil
//			})
//		if err := s.Run(context.Background(), transport.Stdio()); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// A handler reaches back to the client through its *Request: Progress, Log,
// and the questions Elicit, Sample, ListRoots and AskAll. In the legacy era a
// question is a request to the client on the connection; in the modern era
// it ends the round with an InputRequiredResult and the handler runs again,
// from the start, when the client retries with the answers (see AskAll).
//
// A handler about to wait for a database or another service calls
// jsonrpc.WillWait with its context first: over stdio a request may be
// served on the connection's reading goroutine, and WillWait moves the
// reading elsewhere, so that the connection's other requests are read and
// served while the handler waits. Elsewhere it does nothing. For a wait
// that is usually brief (a cache's round trip), jsonrpc.MayWait moves the
// reading only when more requests may come meanwhile.
//
// # Tasks
//
// With a task runtime (Options.Tasks), a tool registered with the Tasks
// option runs as a durable task on both task surfaces, from the same
// handler: the 2025-11-25 tasks of legacy sessions (the client asks with
// the task param; tasks/get, tasks/result, tasks/list, tasks/cancel,
// notifications/tasks/status) and the io.modelcontextprotocol/tasks
// extension of modern requests (the server decides, only for requests
// declaring the extension; tasks/get, tasks/update, tasks/cancel, and
// notifications/tasks on subscriptions/listen). Inside a task, Progress
// becomes the task's statusMessage and questions (Elicit, Sample,
// ListRoots, AskAll) become the task's input requests; TaskConfig.PromoteAfter
// runs a call inline first and turns it into a task only if it is still
// running at the deadline. Session.ElicitAsTask and Session.SampleAsTask
// are the other direction: requests a 2025-11-25 client runs as tasks.
//
// # Over HTTP
//
// Served by streamable.Handler (or sse.Handler) behind the auth package's
// middleware, a request's principal is its access token's (auth.PrincipalFrom):
// a legacy session belongs to the principal that initialized it, and the
// handlers of every request see the token in their context, so a handler may
// demand more with auth.RequireScopes; the *auth.InsufficientScopeError it
// returns is answered with 403 and the step-up challenge while nothing of
// the response has been sent. Request.CloseSSEStream ends a legacy request's
// SSE response for the client to resume (SEP-1699 polling); a tool that
// does so is added with ClosesSSEStream, since the calls of other tools run
// on the goroutine of the POST that carried them.
//
// Tasks belong to the request's principal: the authenticated identity, or
// else, in a legacy session, the session. An unauthenticated modern request
// has neither, so its tasks are shared by every unauthenticated request and
// the unguessable task ID is the capability to reach them.
package server

// Package client is the MCP client: it connects to a server over any
// jsonrpc.Stream, in every protocol version, and offers a typed call for every method.
//
// Connect settles the era. By default it probes with server/discover and
// speaks 2026-07-28 (stateless requests that each carry their own _meta) when
// the server does, and otherwise performs the legacy initialize handshake;
// Options.ProtocolVersion pins a version instead. Code written against a
// Session works in either era: the handlers in Options answer the server's
// requests for sampling, elicitation and roots whether they arrive as legacy
// server-to-client requests or inside a modern input_required result (the
// call is then retried until it completes), and a call whose context ends
// is abandoned with notifications/cancelled.
//
// Long calls run as tasks in both task surfaces: the 2025-11-25 tasks and
// the io.modelcontextprotocol/tasks extension of 2026-07-28. CallToolAsTask
// returns a TaskHandle once the server has created the task (or answered at
// once), and the handle's Status, Wait, Result and Cancel work the same in
// either era; Session.Task rebuilds a handle from a saved ID. CallTool with
// WithTask waits for such a task transparently, and Session.Tasks lists a
// 2025-11-25 server's tasks. With Options.Tasks a 2025-11-25 client also
// runs the sampling and elicitation a server asks for as tasks.
//
// A minimal client that starts a server and calls a tool:
//
//	cmd := exec.Command("my-mcp-server")
//	stream, err := transport.NewCommand(cmd)
//	if err != nil {
//		return err
//	}
//	c := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, &client.Options{
//		ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
//			return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
//		},
//	})
//	session, err := c.Connect(ctx, stream)
//	if err != nil {
//		return err
//	}
//	defer session.Close()
//	for tool, err := range session.Tools(ctx) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(tool.Name)
//	}
//	res, err := session.CallTool(ctx, &mcp.CallToolParams{
//		Name:      "add",
//		Arguments: json.RawMessage(`{"a":1,"b":2}`),
//	}, client.WithProgress(func(p *mcp.ProgressNotificationParams) {
//		fmt.Printf("%v/%v %s\n", p.Progress, p.Total, p.Message)
//	}))
//
// A long call as a task whose ID outlives the process:
//
//	task, err := session.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "render"})
//	if err != nil {
//		return err
//	}
//	save(task.ID()) // "" when the server answered at once
//	res, err := task.Wait(ctx)
//	var failed *client.TaskFailedError
//	if errors.As(err, &failed) {
//		fmt.Println("the render failed:", failed.StatusMessage, failed.Err)
//	}
package client

package example

import (
	"log/slog"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// Info is how the example server introduces itself.
var Info = mcp.Implementation{Name: "weft-example", Version: "1.0.0"}

// instructions tell a client's model what the example server is for.
const instructions = "An example weft server. echo returns its text; sleep waits (run it as a task to poll, watch or cancel it); " +
	"confirm asks the user a yes/no question; fail always fails; once waits as sleep does, but its task is never run twice; " +
	"touch tells the clients subscribed to a resource that it changed."

// New returns the example server with every tool, resource and prompt
// registered. opts must set Tasks, the runtime sleep and confirm run on as
// tasks; its Instructions are replaced.
func New(opts *server.Options) *server.Server {
	o := *opts
	o.Instructions = instructions
	s := server.New(Info, &o)
	addEcho(s)
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	addSleep(s, logger)
	addConfirm(s, logger)
	addFail(s)
	addOnce(s, logger)
	addReadme(s)
	addGreet(s)
	addTouch(s)
	return s
}

// asTask lets a client run the tool as a task. Such a tool must be safe to
// run again: when the instance running its task is lost, another instance
// on the same store (or this one, restarted) runs it again from the start,
// replaying the answers the user already gave.
func asTask() server.ToolOption {
	return server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional, Recovery: tasks.Policy{Rerun: true}})
}

// asOnceTask lets a client run the tool as a task that is not run again:
// when the instance running it is lost, another instance fails it, saying
// so in its statusMessage (the engine's default policy).
func asOnceTask() server.ToolOption {
	return server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional})
}

package server_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// A typed tool: its input schema comes from the argument struct, and a
// client (here over an in-memory pipe) calls it.
func ExampleAddTool() {
	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone"},
		func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})

	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Ada"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: Hello, Ada!
}

// A tool that may run as a task: the client asks for one, gets the task at
// once, and waits for its result (polling, or following status
// notifications); the task engine keeps it in its store meanwhile.
func ExampleTasks() {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithPollInterval(20*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(context.Background())
	s := server.New(mcp.Implementation{Name: "worker", Version: "1.0.0"}, &server.Options{Tasks: rt})
	server.AddTool(s, &mcp.Tool{Name: "slow_greet", Description: "Greets someone, slowly"},
		func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
			select {
			case <-time.After(50 * time.Millisecond): // long work stands here
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return "Hello, " + in.Name + "!", nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))

	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	task, err := session.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "slow_greet", Arguments: []byte(`{"name":"Grace"}`)})
	if err != nil {
		log.Fatal(err)
	}
	res, err := task.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: Hello, Grace!
}

package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// Connecting to a server over Streamable HTTP: Connect negotiates the
// protocol version (the newest both sides speak, unless Options pins one)
// and learns who the server is.
func ExampleClient_Connect() {
	s := server.New(mcp.Implementation{Name: "weather", Version: "1.2.0"}, &server.Options{Instructions: "Ask for a city's weather."})
	h := streamable.NewHandler(s, nil)
	hs := httptest.NewServer(h)
	defer func() {
		h.Shutdown(context.Background())
		hs.Close()
	}()

	c := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, &client.Options{ProtocolVersion: mcp.Version20251125})
	session, err := c.Connect(context.Background(), streamable.NewClient(hs.URL, nil))
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	info := session.ServerInfo()
	fmt.Println(info.Name, info.Version, "speaking", session.ProtocolVersion())
	fmt.Println(session.Instructions())
	// Output:
	// weather 1.2.0 speaking 2025-11-25
	// Ask for a city's weather.
}

// An untyped tool call: the arguments are raw JSON, and the result is the
// tool's content. A tool's failure is a result with IsError set, not a Go
// error.
func ExampleSession_CallTool() {
	session := connectExample(weatherServer(), nil)
	defer session.Close()
	ctx := context.Background()
	for _, city := range []string{"Lisbon", "Atlantis"} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: []byte(`{"city":"` + city + `"}`)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// false {"city":"Lisbon","tempC":21.5}
	// true no station in Atlantis
}

// Listing with an iterator: it fetches page after page as the loop goes
// on, and yields an error (then stops) if a page cannot be had.
func ExampleSession_Tools() {
	s := weatherServer()
	server.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
		func(ctx context.Context, r *server.Request, in weatherIn) (weather, error) {
			return weather{City: in.City, TempC: 19}, nil
		})
	session := connectExample(s, nil)
	defer session.Close()
	for tool, err := range session.Tools(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", tool.Name, tool.Description)
	}
	// Output:
	// weather: Current weather
	// forecast: Tomorrow's weather
}

// A tool that runs as a task and reports its progress: the call returns
// the task at once; the progress of a 2025-11-25 task reaches the
// WithProgress handler while Wait follows the task to its result.
func ExampleSession_CallToolAsTask() {
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithPollInterval(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(context.Background())
	s := server.New(mcp.Implementation{Name: "reports", Version: "1.0.0"}, &server.Options{Tasks: rt})
	server.AddTool(s, &mcp.Tool{Name: "report", Description: "Builds a long report"},
		func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
			for page := 1; page <= 3; page++ {
				if err := r.Progress(ctx, float64(page), 3, fmt.Sprintf("page %d of 3", page)); err != nil {
					return "", err
				}
			}
			return "a report of 3 pages", nil
		}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))

	session := connectExample(s, &client.Options{ProtocolVersion: mcp.Version20251125})
	defer session.Close()
	ctx := context.Background()
	progress := make(chan string, 3)
	task, err := session.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "report", Arguments: []byte(`{}`)},
		client.WithProgress(func(p *mcp.ProgressNotificationParams) { progress <- p.Message }))
	if err != nil {
		log.Fatal(err)
	}
	res, err := task.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		fmt.Println("progress:", <-progress)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// progress: page 1 of 3
	// progress: page 2 of 3
	// progress: page 3 of 3
	// a report of 3 pages
}

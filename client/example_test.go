package client_test

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

type weatherIn struct {
	City string `json:"city"`
}

type weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

// connectExample serves s on one end of an in-memory pipe and connects a
// client with opts on the other.
func connectExample(s *server.Server, opts *client.Options) *client.Session {
	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, opts).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	return session
}

// weatherServer has a typed tool and one that fails.
func weatherServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "weather", Description: "Current weather"},
		func(ctx context.Context, r *server.Request, in weatherIn) (weather, error) {
			if in.City == "Atlantis" {
				return weather{}, errors.New("no station in Atlantis")
			}
			return weather{City: in.City, TempC: 21.5}, nil
		})
	return s
}

// A typed tool call: the input is encoded, structuredContent is decoded
// into the output type, and a tool's failure is a *client.ToolError
// carrying the tool's content.
func ExampleCallTool() {
	session := connectExample(weatherServer(), nil)
	defer session.Close()
	ctx := context.Background()

	w, err := client.CallTool[weather](ctx, session, "weather", weatherIn{City: "Oslo"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %.1f°C\n", w.City, w.TempC)

	_, err = client.CallTool[weather](ctx, session, "weather", weatherIn{City: "Atlantis"})
	var te *client.ToolError
	if errors.As(err, &te) {
		fmt.Println(te.Result.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// Oslo: 21.5°C
	// no station in Atlantis
}

// Client middleware sees every message the session sends: here it logs
// each request with its ID and outcome, and adds a member to _meta that
// the server's handlers see.
func ExampleMiddleware() {
	logging := func(next client.MethodHandler) client.MethodHandler {
		return func(ctx context.Context, r *client.Request) (stdjson.RawMessage, error) {
			if err := r.SetMeta("com.example/caller", "billing"); err != nil {
				return nil, err
			}
			raw, err := next(ctx, r)
			if !r.IsNotification() {
				fmt.Printf("%s (id %s): error=%v\n", r.Method(), r.ID(), err)
			}
			return raw, err
		}
	}
	session := connectExample(weatherServer(), &client.Options{
		ProtocolVersion: mcp.Version20260728,
		Middleware:      []client.Middleware{logging},
	})
	defer session.Close()
	if _, err := client.CallTool[weather](context.Background(), session, "weather", weatherIn{City: "Oslo"}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// server/discover (id 1): error=<nil>
	// tools/call (id 2): error=<nil>
}

type statsParams struct {
	mcp.RequestParams
	Since string `json:"since"`
}

type statsResult struct {
	mcp.Result
	Calls int `json:"calls"`
}

// Call sends a method an extension defines (served with server.AddMethod),
// typed, with what every request of the session carries.
func ExampleCall() {
	s := server.New(mcp.Implementation{Name: "stats", Version: "1.0.0"}, nil)
	server.AddMethod(s, "com.example/stats", func(ctx context.Context, r *server.Request, p *statsParams) (*statsResult, error) {
		return &statsResult{Calls: 42}, nil
	})
	session := connectExample(s, nil)
	defer session.Close()
	res, err := client.Call[statsResult](context.Background(), session, "com.example/stats", &statsParams{Since: "2026-01-01"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Calls)
	// Output: 42
}

// Session.Call sends any method with params and a result of plain types.
func ExampleSession_Call() {
	s := server.New(mcp.Implementation{Name: "stats", Version: "1.0.0"}, nil)
	server.AddMethod(s, "com.example/stats", func(ctx context.Context, r *server.Request, p *statsParams) (*statsResult, error) {
		return &statsResult{Calls: 42}, nil
	})
	session := connectExample(s, nil)
	defer session.Close()
	var res struct {
		Calls int `json:"calls"`
	}
	if err := session.Call(context.Background(), "com.example/stats", map[string]string{"since": "2026-01-01"}, &res); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Calls)
	// Output: 42
}

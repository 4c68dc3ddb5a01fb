package server_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// pipeClient connects a client with opts to s over an in-memory pipe, as
// principal (empty: none).
func pipeClient(s *server.Server, principal string, opts *client.Options) *client.Session {
	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := s.Connect(ctx, serverEnd, &server.ConnectOptions{Principal: principal}); err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, opts).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	return session
}

// addGreet registers the greet tool.
func addGreet(s *server.Server) {
	server.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone"},
		func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})
}

// Middleware sees every request and notification with its caller, and the
// outcome: here it logs tool calls and refuses one tool to everyone.
func ExampleMiddleware() {
	audit := func(next server.MethodHandler) server.MethodHandler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			if r.ToolName() == "shutdown" {
				return nil, jsonrpc.NewError(-32001, "shutdown is disabled on this server")
			}
			res, err := next(ctx, r)
			if r.Method() == mcp.MethodToolsCall {
				failed := err != nil || res.(*mcp.CallToolResult).IsError
				fmt.Printf("%s %s at %s: failed=%v\n", r.Method(), r.ToolName(), r.ProtocolVersion(), failed)
			}
			return res, err
		}
	}
	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, &server.Options{Middleware: []server.Middleware{audit}})
	addGreet(s)

	session := pipeClient(s, "", &client.Options{ProtocolVersion: mcp.Version20251125})
	defer session.Close()
	ctx := context.Background()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Ada"}`)}); err != nil {
		log.Fatal(err)
	}
	_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "shutdown"})
	fmt.Println(err)
	// Output:
	// tools/call greet at 2025-11-25: failed=false
	// jsonrpc error -32001: shutdown is disabled on this server
}

// echoParams and echoResult are the params and result of an extension's
// method: params embed mcp.RequestParams and results mcp.Result.
type echoParams struct {
	mcp.RequestParams
	Text string `json:"text"`
}

type echoResult struct {
	mcp.Result
	Echo string `json:"echo"`
}

// A method the protocol does not define, served with AddMethod and called
// with client.Call, in any protocol version.
func ExampleAddMethod() {
	s := server.New(mcp.Implementation{Name: "extended", Version: "1.0.0"}, nil)
	server.AddMethod(s, "com.example/echo", func(ctx context.Context, r *server.Request, p *echoParams) (*echoResult, error) {
		return &echoResult{Echo: p.Text}, nil
	})

	session := pipeClient(s, "", nil)
	defer session.Close()
	res, err := client.Call[echoResult](context.Background(), session, "com.example/echo", &echoParams{Text: "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Echo)
	_, err = client.Call[echoResult](context.Background(), session, "com.example/missing", &echoParams{})
	fmt.Println(err)
	// Output:
	// hello
	// jsonrpc error -32601: method "com.example/missing" not found: this server does not implement it
}

// Session hooks follow legacy sessions from initialize to their end, over
// any transport; Sessions lists the live ones.
func ExampleSessionHooks() {
	ended := make(chan struct{})
	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, &server.Options{Sessions: server.SessionHooks{
		Start: func(ctx context.Context, info server.SessionInfo) {
			fmt.Printf("started: %s as %s at %s\n", info.ClientInfo.Name, info.Principal, info.ProtocolVersion)
		},
		End: func(info server.SessionInfo) {
			fmt.Printf("ended: %s\n", info.Principal)
			close(ended)
		},
	}})

	session := pipeClient(s, "ada", &client.Options{ProtocolVersion: mcp.Version20251125})
	for ss := range s.Sessions() {
		fmt.Println("live:", ss.Principal())
	}
	session.Close()
	<-ended
	// Output:
	// started: example as ada at 2025-11-25
	// live: ada
	// ended: ada
}

// Visibility shows each caller only what it may use: here the admin tool
// to the principal root, or to a token granting the admin scope (over
// Streamable HTTP behind auth's middleware). A hidden tool is answered as
// an unknown one.
func ExampleVisibility() {
	s := server.New(mcp.Implementation{Name: "ops", Version: "1.0.0"}, &server.Options{Visibility: server.Visibility{
		Tool: func(ctx context.Context, r *server.Request, t *mcp.Tool) bool {
			if t.Name != "admin" {
				return true
			}
			if info := auth.TokenInfoFrom(ctx); info != nil {
				return slices.Contains(info.Scopes, "admin")
			}
			return r.Principal() == "root"
		},
	}})
	addGreet(s)
	server.AddTool(s, &mcp.Tool{Name: "admin", Description: "Administers"},
		func(ctx context.Context, r *server.Request, in struct{}) (string, error) { return "done", nil })

	ctx := context.Background()
	for _, who := range []string{"root", "guest"} {
		session := pipeClient(s, who, nil)
		var names []string
		for tool, err := range session.Tools(ctx) {
			if err != nil {
				log.Fatal(err)
			}
			names = append(names, tool.Name)
		}
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "admin"})
		fmt.Println(who, names, err)
		session.Close()
	}
	// Output:
	// root [greet admin] <nil>
	// guest [greet] jsonrpc error -32602: unknown tool "admin"; tools/list names the tools this server offers
}

package servertest_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
)

type greetIn struct {
	Name string `json:"name"`
}

// In a test (t is its *testing.T), one call connects a client to the
// server under test; both ends close when the test ends. ConnectHTTP does
// the same over Streamable HTTP on a loopback listener.
func ExampleConnect() {
	var t *testing.T // the test's

	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone"},
		func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})

	session, _ := servertest.Connect(t, s, &client.Options{ProtocolVersion: mcp.Version20251125})
	got, err := client.CallTool[string](context.Background(), session, "greet", greetIn{Name: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if got != "Hello, Ada!" {
		t.Errorf("greet said %q; want Hello, Ada!", got)
	}
}

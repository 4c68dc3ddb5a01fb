package streamable_test

import (
	"log"
	"net/http"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

// One endpoint for every protocol version: legacy sessions and modern
// stateless requests alike, at /mcp.
func ExampleNewHandler() {
	s := server.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	// register tools, resources and prompts on s
	http.Handle("/mcp", streamable.NewHandler(s, nil))
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", nil))
}

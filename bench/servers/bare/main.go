// Command bare is the benchmark's floor: the one-tool echo MCP server written
// with nothing but the standard library, doing only what a correct server must.
//
// It serves stdio by default and Streamable HTTP at /mcp with -http ADDR.
// Over stdio one goroutine reads lines and each request runs in its own
// goroutine (as any server that honours notifications/cancelled must), with
// responses written whole under a mutex; with -serial each request is
// answered on the reading goroutine instead (the floor of a stdio call, but
// not a valid MCP server: it cannot see a cancellation). Over HTTP it keeps legacy sessions
// in a map (id to negotiated version) and answers every request with JSON.
package main

import (
	"context"
	"flag"
	"net/http"
	"os"

	"github.com/weftmcp/weft/bench/internal/servermain"
)

func main() {
	serial := flag.Bool("serial", false, "stdio: answer each request on the reading goroutine, one after another")
	servermain.Main(servermain.Server{
		Name: "bare",
		Stdio: func(ctx context.Context) error {
			if *serial {
				return serveStdioSerially(ctx, os.Stdin, os.Stdout)
			}
			return serveStdio(ctx, os.Stdin, os.Stdout)
		},
		HTTP: func() http.Handler { return newHTTPHandler() },
	})
}

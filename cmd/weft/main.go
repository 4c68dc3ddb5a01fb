// Command weft serves, proxies and calls MCP servers, with long calls
// running as durable, pollable, cancellable tasks. Run weft --help, or
// weft demo to see it all on your machine.
package main

import (
	"os"

	"github.com/weftmcp/weft/cmd/weft/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}

package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// stdioServerEnv, set to 1, makes the test binary serve the fixture over
// stdio instead of running tests: the stdio transport's server process. Set
// to "skills", it serves the skills server (newSkillsServer) instead.
const stdioServerEnv = "WEFT_E2E_STDIO_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(stdioServerEnv) {
	case "1":
		os.Exit(serveStdio(newFixture().srv))
	case "skills":
		os.Exit(serveStdio(newSkillsServer()))
	}
	os.Exit(m.Run())
}

// serveStdio serves srv on stdin and stdout until stdin closes.
func serveStdio(srv *server.Server) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err := srv.Run(context.Background(), transport.Stdio()); err != nil {
		fmt.Fprintln(os.Stderr, "e2e stdio server:", err)
		return 1
	}
	return 0
}

package adversarial

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/weftmcp/weft/transport"
)

// stdioServerEnv, set to 1, makes the test binary serve the fixture over
// stdio instead of running tests.
const stdioServerEnv = "WEFT_ADVERSARIAL_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

// serveStdio serves the fixture on stdin and stdout until stdin closes.
func serveStdio() int {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	if err := newFixture().srv.Run(context.Background(), transport.Stdio()); err != nil {
		fmt.Fprintln(os.Stderr, "adversarial stdio server:", err)
		return 1
	}
	return 0
}

package main

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/conformance/internal/outcome"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// scenarioTimeout bounds one scenario; the suite kills the client at its own
// --timeout (run.sh sets 30 s): a hung call fails here first, with a reason.
const scenarioTimeout = 25 * time.Second

// env is what the suite gave the client for one scenario.
type env struct {
	scenario string
	url      string // the mock server's MCP endpoint
	version  string // MCP_CONFORMANCE_PROTOCOL_VERSION; empty lets the client negotiate
	context  stdjson.RawMessage
	// httpClient sends the transport's requests; nil means
	// http.DefaultClient. The authorization scenarios set one that
	// authorizes them.
	httpClient *http.Client
}

// player plays one scenario.
type player func(ctx context.Context, e *env) error

// scenarios maps the suite's client scenario names to what the client does.
// Each entry's behaviour is described in doc.go.
var scenarios = map[string]player{
	"initialize":                          playListTools,
	"tools_call":                          playToolsCall,
	"elicitation-sep1034-client-defaults": playElicitationDefaults,
	"sse-retry":                           playSSERetry,
	"request-metadata":                    playRequestMetadata,
	"http-standard-headers":               playEverything,
	"http-custom-headers":                 playCustomHeaders,
	"http-invalid-tool-headers":           playInvalidToolHeaders,
	"json-schema-ref-no-deref":            playListTools,
	"json-schema-2020-12-preservation":    playSchemaPreservation,
	"sep-2322-client-request-state":       playRequestState,
	"sep-2640-client-no-prefetch":         playSkillsList,
	"sep-2640-client-verify-digest":       playSkillsLoad,
	"sep-2640-client-verify-size":         playSkillsLoad,
	"sep-2640-client-verify-frontmatter":  playSkillsLoad,
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, outcome.FailedPrefix+err.Error())
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, outcome.Completed)
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("no server URL: the conformance suite passes it as the last argument")
	}
	e := &env{
		scenario: os.Getenv("MCP_CONFORMANCE_SCENARIO"),
		url:      args[len(args)-1],
		version:  os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
	}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		e.context = stdjson.RawMessage(raw)
	}
	if e.scenario == "" {
		return errors.New("MCP_CONFORMANCE_SCENARIO is not set; run this program through the conformance suite (conformance/run.sh)")
	}
	play, ok := scenarios[e.scenario]
	switch {
	case ok:
	case strings.HasPrefix(e.scenario, "auth/"):
		play, ok = playAuth, true
	}
	if !ok {
		names := make([]string, 0, len(scenarios))
		for n := range scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("scenario %q is not implemented by this client; it plays auth/* and %v", e.scenario, names)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	return play(ctx, e)
}

// connect opens a session to the mock server in the scenario's protocol
// version with the given handlers.
func (e *env) connect(ctx context.Context, opts client.Options) (*client.Session, error) {
	opts.ProtocolVersion = e.version
	stream := streamable.NewClient(e.url, &streamable.ClientOptions{HTTPClient: e.httpClient})
	s, err := client.New(mcp.Implementation{Name: "weft-conformance-client", Version: "1.0.0"}, &opts).Connect(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s (protocol %q): %w", e.url, e.version, err)
	}
	return s, nil
}

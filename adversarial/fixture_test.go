package adversarial

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// waitLimit bounds every wait of the suite, on the server's side and the
// test's; it is far above any real wait, so it only matters when a test
// fails.
const waitLimit = 90 * time.Second

// fixture is the server under attack. Its "slow" tool is the bystander's
// call: it runs until the test calls "release" with the same tag, so the
// call is in flight for the whole attack.
type fixture struct {
	srv *server.Server

	mu      sync.Mutex
	gates   map[string]chan struct{} // tag → closed by release
	started map[string]chan struct{} // tag → closed when slow begins
}

type (
	addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	addOut struct {
		Sum int `json:"sum"`
	}
	tagIn struct {
		Tag string `json:"tag"`
	}
	textOut struct {
		Text string `json:"text"`
	}
)

// newFixture builds the server.
func newFixture() *fixture {
	f := &fixture{gates: make(map[string]chan struct{}), started: make(map[string]chan struct{})}
	s := server.New(mcp.Implementation{Name: "weft-adversarial", Version: "1.0.0"}, nil)
	f.srv = s
	server.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds a and b."},
		func(_ context.Context, _ *server.Request, in addIn) (addOut, error) {
			return addOut{Sum: in.A + in.B}, nil
		})
	s.AddRawTool(&mcp.Tool{Name: "echo", Description: "Returns its arguments as text."},
		func(_ context.Context, _ *server.Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: string(args)}}}, nil
		})
	server.AddTool(s, &mcp.Tool{Name: "slow", Description: "Runs until release is called with the same tag."},
		func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
			close(f.hasStarted(in.Tag))
			select {
			case <-f.gate(in.Tag):
				return textOut{Text: "slow " + in.Tag + " done"}, nil
			case <-ctx.Done():
				return textOut{}, fmt.Errorf("slow %s was cancelled: %w", in.Tag, context.Cause(ctx))
			case <-time.After(waitLimit):
				return textOut{}, fmt.Errorf("slow %s was never released", in.Tag)
			}
		})
	server.AddTool(s, &mcp.Tool{Name: "release", Description: "Ends the slow call with the same tag."},
		func(_ context.Context, _ *server.Request, in tagIn) (textOut, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			g := f.gateLocked(in.Tag)
			select {
			case <-g:
			default:
				close(g)
			}
			return textOut{Text: "released " + in.Tag}, nil
		})
	return f
}

// hasStarted returns the channel closed when the slow call tagged tag
// begins (each tag is used once).
func (f *fixture) hasStarted(tag string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.started[tag]
	if !ok {
		ch = make(chan struct{})
		f.started[tag] = ch
	}
	return ch
}

// gate returns the channel release closes for tag.
func (f *fixture) gate(tag string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gateLocked(tag)
}

func (f *fixture) gateLocked(tag string) chan struct{} {
	g, ok := f.gates[tag]
	if !ok {
		g = make(chan struct{})
		f.gates[tag] = g
	}
	return g
}

package cli

import (
	"context"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
	"github.com/weftmcp/weft/transport/websocket"
)

// targetHelp explains how a client command names its server.
const targetHelp = `The server is given by its URL, first (http:// or https:// for Streamable HTTP,
ws:// or wss:// for WebSocket), or by a command line at the end, after "--",
that starts a server speaking stdio.`

// stdioGrace is how long a stdio server has to exit after its stdin closes
// before it is killed; some servers never exit by themselves.
const stdioGrace = 2 * time.Second

// clientInfo is how the weft CLI introduces itself to servers.
var clientInfo = mcp.Implementation{Name: "weft-cli", Version: version()}

// target is the server a client command talks to.
type target struct {
	url     string   // a Streamable HTTP or WebSocket endpoint, or
	command []string // a server to start, speaking stdio
}

// String names the target for messages.
func (t target) String() string {
	if t.url != "" {
		return t.url
	}
	return strings.Join(t.command, " ")
}

// splitTarget separates the server from the command's other arguments: a
// leading http(s) URL, or everything after "--".
func splitTarget(cmd *cobra.Command, args []string) (target, []string, error) {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		if dash == len(args) {
			return target{}, nil, usageError(`nothing follows "--"; give the command that starts the server, as in: -- weft serve --stdio`)
		}
		rest := args[:dash]
		if len(rest) > 0 && isURL(rest[0]) {
			return target{}, nil, usageError("give the server once: as a URL (%s) or as a command after \"--\", not both", rest[0])
		}
		return target{command: args[dash:]}, rest, nil
	}
	if len(args) > 0 && isURL(args[0]) {
		return target{url: args[0]}, args[1:], nil
	}
	if len(args) > 0 {
		if u, ok := schemeless(args[0]); ok {
			return target{}, nil, usageError("%q has no scheme: write %s", args[0], u)
		}
	}
	return target{}, nil, usageError(`which server? Give its URL first (http://HOST:PORT/mcp) or its command line after "--" (-- weft serve --stdio)`)
}

// isURL reports whether s is an http, https, ws or wss URL.
func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https" || isWebSocket(u)) && u.Host != ""
}

// isWebSocket reports whether u is a ws or wss URL.
func isWebSocket(u *url.URL) bool { return u.Scheme == "ws" || u.Scheme == "wss" }

// stream opens the transport to the target.
func (t target) stream(ctx context.Context, e *env) (jsonrpc.Stream, error) {
	if t.url != "" {
		hc := &http.Client{Transport: newAuthTransport(e)}
		if u, _ := url.Parse(t.url); isWebSocket(u) {
			return websocket.Dial(ctx, t.url, &websocket.DialOptions{HTTPClient: hc})
		}
		return streamable.NewClient(t.url, &streamable.ClientOptions{Logger: e.logger(), HTTPClient: hc}), nil
	}
	cmd := exec.Command(t.command[0], t.command[1:]...)
	return transport.NewCommand(cmd, transport.WithStderr(e.stderr), transport.WithGracePeriod(stdioGrace))
}

// connect starts a client session with the target.
func connect(ctx context.Context, e *env, t target, opts client.Options) (*client.Session, error) {
	stream, err := t.stream(ctx, e)
	if err != nil {
		return nil, &exitError{code: ExitProtocol, err: err}
	}
	opts.Logger = e.logger()
	s, err := client.New(clientInfo, &opts).Connect(ctx, stream)
	if err != nil {
		return nil, classify(ctx, connectError(t, err))
	}
	return s, nil
}

package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/example"
	"github.com/weftmcp/weft/cmd/weft/internal/httpserve"
	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// Config is what the demo needs from its command.
type Config struct {
	// Out is where the story is told.
	Out io.Writer
	// Terminal says Out is a terminal: progress is drawn as live bars.
	Terminal bool
	// Logger receives diagnostics.
	Logger *slog.Logger
}

// Run tells the whole story and cleans up after itself: the server stops
// gracefully and the temporary folder is removed.
func Run(ctx context.Context, cfg Config) (err error) {
	started := time.Now()
	scr := &screen{w: cfg.Out, terminal: cfg.Terminal}
	fmt.Fprintln(cfg.Out, "weft demo: an MCP server with durable tasks, and a client driving it, on this machine")

	dir, err := os.MkdirTemp("", "weft-demo-")
	if err != nil {
		return fmt.Errorf("creating a temporary folder for the task store: %w", err)
	}
	defer os.RemoveAll(dir)
	dbPath := filepath.Join(dir, "tasks.db")
	rt, err := store.OpenRuntime(ctx, "sqlite:"+dbPath, "", store.Settings{}, cfg.Logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, rt.Close()) }()

	ln, err := httpserve.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	url := httpserve.URL(ln)
	serveCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() {
		served <- httpserve.Serve(serveCtx, example.New(rt.ServerOptions(cfg.Logger)), ln, cfg.Logger, nil, httpserve.Options{})
	}()
	defer func() {
		stopServing()
		err = errors.Join(err, <-served)
	}()
	scr.step("Started the example server at %s", url)
	scr.line("tasks are kept in SQLite: %s", dbPath)

	session, err := client.New(mcp.Implementation{Name: "weft-demo", Version: "1.0.0"}, &client.Options{
		ElicitForm: autoAnswer(scr),
		Logger:     cfg.Logger,
	}).Connect(ctx, streamable.NewClient(url, &streamable.ClientOptions{Logger: cfg.Logger}))
	if err != nil {
		return fmt.Errorf("connecting the demo client to %s: %w", url, err)
	}
	defer session.Close()
	scr.step("Connected a client over Streamable HTTP (protocol %s)", session.ProtocolVersion())

	st := &story{scr: scr, s: session}
	for _, part := range []func(context.Context) error{st.listTools, st.slowTask, st.askingTask, st.cancelledTask, st.failingTool} {
		if err := part(ctx); err != nil {
			return err
		}
	}
	st.summary(time.Since(started))
	return nil
}

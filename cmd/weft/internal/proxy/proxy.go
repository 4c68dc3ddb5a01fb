package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// Proxy is a weft server offering what a wrapped MCP server offers.
type Proxy struct {
	wrapped *client.Session
	srv     *server.Server
	logger  *slog.Logger
	calls   callTable
	subs    subscriptions

	// connected is closed when Connect ends, and ok (set before) says
	// whether it succeeded. A list change the wrapped server announces
	// while Connect runs (the reference server announces one as it
	// starts, before initialize is answered) is read by Connect's own
	// sync: the resync it starts waits for Connect, and does nothing if
	// Connect failed.
	connected chan struct{}
	ok        bool

	syncMu       sync.Mutex // one resync at a time; guards what is offered:
	toolNames    map[string]bool
	resourceURIs map[string]bool
	templateURIs map[string]bool
	promptNames  map[string]bool
}

// Connect speaks MCP with the wrapped server over stream and returns a
// Proxy offering its tools, resources and prompts on a server configured
// with opts (which may be nil). Close the Proxy to end the wrapped session.
func Connect(ctx context.Context, stream jsonrpc.Stream, opts *server.Options) (*Proxy, error) {
	var o server.Options
	if opts != nil {
		o = *opts
	}
	p := &Proxy{logger: o.Logger, connected: make(chan struct{})}
	defer close(p.connected)
	if p.logger == nil {
		p.logger = slog.Default()
	}
	c := client.New(mcp.Implementation{Name: "weft-proxy", Version: "1.0.0"}, &client.Options{
		ElicitForm:             p.elicit,
		ElicitURL:              p.elicit,
		CreateMessage:          p.sample,
		OnToolsListChanged:     func(context.Context, *mcp.ToolListChangedNotificationParams) { go p.resync() },
		OnPromptsListChanged:   func(context.Context, *mcp.PromptListChangedNotificationParams) { go p.resync() },
		OnResourcesListChanged: func(context.Context, *mcp.ResourceListChangedNotificationParams) { go p.resync() },
		OnResourceUpdated:      p.resourceUpdated,
		Logger:                 p.logger,
	})
	wrapped, err := c.Connect(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("connecting to the wrapped server: %w", err)
	}
	p.wrapped = wrapped
	info := wrapped.ServerInfo()
	o.Middleware = append(o.Middleware[:len(o.Middleware):len(o.Middleware)], p.forwardSubscriptions)
	if o.Instructions == "" {
		o.Instructions = wrapped.Instructions()
	}
	p.srv = server.New(mcp.Implementation{Name: info.Name, Title: info.Title, Version: info.Version}, &o)
	if p.offersCompletion() {
		p.srv.SetCompletionHandler(p.complete)
	}
	p.listenForListChanges(ctx)
	if err := p.sync(ctx); err != nil {
		wrapped.Close()
		return nil, err
	}
	p.ok = true
	return p, nil
}

// Server is the weft server offering the wrapped server's features.
func (p *Proxy) Server() *server.Server { return p.srv }

// Wrapped is the client session with the wrapped server.
func (p *Proxy) Wrapped() *client.Session { return p.wrapped }

// Close ends the session with the wrapped server (for a subprocess, this
// stops it).
func (p *Proxy) Close() error { return p.wrapped.Close() }

// sync mirrors everything the wrapped server lists now.
func (p *Proxy) sync(ctx context.Context) error {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	caps := p.wrapped.ServerCapabilities()
	if caps.Tools != nil {
		if err := p.syncTools(ctx); err != nil {
			return err
		}
	}
	if caps.Resources != nil {
		if err := p.syncResources(ctx); err != nil {
			return err
		}
	}
	if caps.Prompts != nil {
		if err := p.syncPrompts(ctx); err != nil {
			return err
		}
	}
	return nil
}

// resync mirrors the wrapped server's lists again after it said one
// changed.
func (p *Proxy) resync() {
	if <-p.connected; !p.ok {
		return
	}
	if err := p.sync(context.Background()); err != nil {
		p.logger.Warn("proxy: the wrapped server's lists changed and could not be read again", "error", err)
	}
}

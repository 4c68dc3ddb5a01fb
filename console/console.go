package console

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/sse"
)

// DefaultAdminScope is the scope a token must grant to use the console,
// unless Options.AdminScope names another.
const DefaultAdminScope = "weft:admin"

// DefaultPageSize is how many tasks a page of the console lists, unless
// Options.PageSize says otherwise.
const DefaultPageSize = 50

// maxPageSize bounds Options.PageSize and the page size a request asks for.
const maxPageSize = 500

// Options configures a Console.
type Options struct {
	// Runtime cancels tasks, so that a cancel reaches the work on whichever
	// instance runs it. Required.
	Runtime *tasks.Runtime
	// Store is the Runtime's store, read for the listing; it must
	// implement tasks.Inventory (the memory store and every driver in
	// taskstore do). Required.
	Store tasks.Store
	// Bus is the Runtime's bus, followed for live updates; it must
	// implement tasks.Feed (the memory bus and every driver in taskstore
	// do). Required.
	Bus tasks.Bus
	// Verifier checks the access token every request must carry (an
	// Authorization: Bearer header, or the cookie the page's sign-in sets).
	// Nil requires no token: then anyone who reaches the console's address
	// may use it, so keep it on a loopback address.
	Verifier auth.Verifier
	// AdminScope is the scope the token must grant (DefaultAdminScope when
	// empty).
	AdminScope string
	// Origins checks Origin and Host as the MCP endpoint does (see
	// docs/http.md); on top of it, the console serves no other origin's
	// pages at all: it sends no CORS headers, and an Origin that is not
	// its own is refused.
	Origins sse.OriginPolicy
	// Audit, when set, supplies the audit events shown with a task (see
	// AuditRecorder).
	Audit *AuditRecorder
	// PageSize is how many tasks a page lists (DefaultPageSize when zero,
	// at most 500).
	PageSize int
	// Logger receives the console's own problems (slog.Default() when nil).
	Logger *slog.Logger
	// CSRFKey, when set, is the secret the console's CSRF token is derived
	// from, so that consoles given the same key (instances sharing a store
	// behind a load balancer) take each other's pages' actions. Nil draws a
	// random token per Console: a page then acts only on the instance that
	// served it. The weft CLI passes its request-state key.
	CSRFKey []byte
}

// Console is the task console: an http.Handler. Mount it at the root of
// its own server, or under a prefix with http.StripPrefix (its links are
// relative): mux.Handle("/console/", http.StripPrefix("/console", c)).
type Console struct {
	rt        *tasks.Runtime
	store     tasks.Store
	inventory tasks.Inventory
	feed      tasks.Feed
	verifier  auth.Verifier
	scope     string
	origins   sse.OriginPolicy
	audit     *AuditRecorder
	pageSize  int
	log       *slog.Logger
	csrf      string // the token every action must carry in csrfHeader
	mux       *http.ServeMux
	page      *template.Template
	now       func() time.Time

	totalsCache totalsCache
}

//go:embed static
var static embed.FS

// New returns a Console over the options' runtime, store and bus.
func New(opts Options) (*Console, error) {
	if opts.Runtime == nil || opts.Store == nil || opts.Bus == nil {
		return nil, errors.New("console: New needs the Runtime, and the Store and Bus it was made with")
	}
	inv, ok := opts.Store.(tasks.Inventory)
	if !ok {
		return nil, fmt.Errorf("console: the store %T cannot list every principal's tasks (it does not implement tasks.Inventory); "+
			"use the memory store or a driver from taskstore", opts.Store)
	}
	feed, ok := opts.Bus.(tasks.Feed)
	if !ok {
		return nil, fmt.Errorf("console: the bus %T cannot deliver every task's signals (it does not implement tasks.Feed); "+
			"use the memory bus or a driver from taskstore", opts.Bus)
	}
	if opts.PageSize < 0 || opts.PageSize > maxPageSize {
		return nil, fmt.Errorf("console: the page size must be between 1 and %d, not %d", maxPageSize, opts.PageSize)
	}
	c := &Console{
		rt: opts.Runtime, store: opts.Store, inventory: inv, feed: feed,
		verifier: opts.Verifier, scope: opts.AdminScope, origins: opts.Origins, audit: opts.Audit,
		pageSize: opts.PageSize, log: opts.Logger, csrf: csrfToken(opts.CSRFKey), now: time.Now,
	}
	if c.scope == "" {
		c.scope = DefaultAdminScope
	}
	if c.pageSize == 0 {
		c.pageSize = DefaultPageSize
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	page, err := template.ParseFS(static, "static/index.html")
	if err != nil {
		return nil, fmt.Errorf("console: the embedded page: %w", err)
	}
	c.page = page
	assets, _ := fs.Sub(static, "static")
	c.mux = http.NewServeMux()
	c.mux.HandleFunc("GET /{$}", c.servePage)
	c.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	c.mux.HandleFunc("POST /session", c.signIn)
	c.mux.HandleFunc("POST /session/end", c.signOut)
	c.mux.Handle("GET /api/tasks", c.admin(c.serveList))
	c.mux.Handle("GET /api/tasks/{id}", c.admin(c.serveDetail))
	c.mux.Handle("GET /api/totals", c.admin(c.serveTotals))
	c.mux.Handle("GET /api/events", c.admin(c.serveEvents))
	c.mux.Handle("POST /api/tasks/{id}/cancel", c.admin(c.cancel))
	return c, nil
}

// ServeHTTP implements http.Handler: every request passes the Origin and
// Host checks, then the route's own (a token, for everything that shows
// or changes tasks; the CSRF token, for every action).
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if err := c.checkOrigin(r); err != nil {
		problem(w, http.StatusForbidden, err.Error())
		return
	}
	c.mux.ServeHTTP(w, r)
}

// servePage serves the page itself: no task data (that comes from the
// API, to a signed-in operator), only the CSRF token its actions carry.
func (c *Console) servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	err := c.page.Execute(w, struct {
		CSRF, CSRFHeader string
		SignIn           bool
		PageSize         int
	}{c.csrf, csrfHeader, c.verifier != nil, c.pageSize})
	if err != nil {
		c.log.Warn("console: writing the page", slog.Any("error", err))
	}
}

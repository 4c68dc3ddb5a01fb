package server

import (
	stdjson "encoding/json"
	"log/slog"
	"maps"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/internal/wrap"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// Defaults for Options.
const (
	// DefaultPageSize is how many items a list result holds when
	// Options.PageSize is not set.
	DefaultPageSize = 100
	// DefaultStateTTL is how long a requestState stays valid when
	// Options.StateTTL is not set.
	DefaultStateTTL = 10 * time.Minute
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Instructions tell the client how to use the server (for example in a
	// system prompt). They are sent in the initialize result and in
	// server/discover.
	Instructions string
	// PageSize is how many items one page of tools/list, prompts/list,
	// resources/list or resources/templates/list holds; 0 means
	// DefaultPageSize.
	PageSize int
	// StateKey is the HMAC-SHA256 key that signs requestState (multi
	// round-trip requests) and pagination cursors. When it is empty a random
	// key is made per process, which is right for one process; several
	// instances serving the same clients (behind a load balancer) must share
	// one key, or a retry or a next page that lands on another instance is
	// rejected as tampered. Use at least 32 random bytes. A
	// sessions.Store holds one for every instance on it (StateKey).
	StateKey []byte
	// PreviousStateKeys still verify what they signed, but sign nothing:
	// to rotate the key without failing the exchanges in flight, make the
	// new key StateKey and the old one a previous key until StateTTL has
	// passed.
	PreviousStateKeys [][]byte
	// StateTTL is how long a requestState is accepted after it was issued;
	// 0 means DefaultStateTTL.
	StateTTL time.Duration
	// ListCache is the caching hint on modern list results (tools, prompts,
	// resources, resource templates) and on server/discover. The zero value
	// says "immediately stale, public"; with no Scope set, a list that a
	// Visibility function filters is private, since it differs by caller.
	ListCache CacheHint
	// ReadCache is the caching hint on modern resources/read results that do
	// not carry their own. The zero value says "immediately stale, private".
	ReadCache CacheHint
	// Capabilities are declared on top of those derived from what is
	// registered: for example Experimental or Extensions entries, or Tools to
	// announce tools before the first one is added. The tasks capability and
	// the tasks extension follow Options.Tasks, whatever is set here.
	Capabilities *mcp.ServerCapabilities
	// Logger receives the server's diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Tasks is the task engine that runs the tools registered with task
	// support (the Tasks tool option), on both task surfaces: the
	// 2025-11-25 tasks of legacy sessions and the
	// io.modelcontextprotocol/tasks extension of modern requests. nil means
	// the server runs no tasks and declares neither. The runtime must serve
	// this Server only (the server registers its tools' task handlers on
	// it); several instances behind a load balancer each have their own
	// Runtime on a shared Store and Bus. The caller closes it after the
	// server stops serving.
	Tasks *tasks.Runtime
	// Middleware wraps the handling of every incoming request and
	// notification, in order: the first is outermost. A request reaches it
	// once the server knows its method, params and caller (a request whose
	// params do not decode, or a modern one whose _meta is malformed, is
	// answered before). None costs nothing.
	Middleware []Middleware
	// AskMiddleware wraps every question a handler asks the client
	// (elicitation, sampling, roots), in order: the first is outermost. A
	// question passes it once each time the handler asks it, whichever way
	// it then reaches the client (see AskRequest): a legacy session's
	// request, a task's input request, or a modern request's input_required
	// result, which the handler asks again in the retry.
	AskMiddleware []AskMiddleware
	// Sessions are called as legacy sessions start and end, and on the
	// notifications a client sends about its session.
	Sessions SessionHooks
	// Visibility decides, per request, which tools, resources, resource
	// templates and prompts its caller can see. The zero value shows all.
	Visibility Visibility
}

// CacheHint is the caching hint (ttlMs and cacheScope) the modern era
// requires on cacheable results.
type CacheHint struct {
	// TTL is how long the client may consider the result fresh, rounded down
	// to milliseconds; 0 means immediately stale.
	TTL time.Duration
	// Scope is who may reuse the result; empty means the default of the
	// option it is in.
	Scope mcp.CacheScope
}

// Server is an MCP server: it holds the registries of tools, resources,
// resource templates, prompts and completions, and serves them to clients of
// every protocol version, over stream connections (Connect, Run) and one
// request at a time for HTTP transports (ServeRequest). All its methods are
// safe for concurrent use, registration included while serving.
type Server struct {
	info       mcp.Implementation
	serverInfo stdjson.RawMessage // info encoded once, for _meta[MetaServerInfo]
	// serverInfoText is serverInfo as it was encoded, apart from the bytes
	// results share: a result's _meta value equal to it is known strict
	// and compact (encodeTaskResult).
	serverInfoText string
	opts           Options
	logger         *slog.Logger
	pageSize       int
	stateTTL       time.Duration
	states         sealer // signs requestState
	cursors        sealer // signs pagination cursors
	now            func() time.Time
	// timer starts the deadline of a promotion (see promotion): a channel
	// that receives when d has passed, and a stop function.
	timer func(d time.Duration) (<-chan time.Time, func() bool)

	tools      registry[*serverTool]
	prompts    registry[*serverPrompt]
	resources  registry[*serverResource]
	templates  registry[*serverTemplate]
	completion atomic.Pointer[CompletionHandler]
	skills     skillSet
	apps       atomic.Bool // an MCP App is registered (AddUIResource)

	hub   hub
	tasks taskHost // the task surfaces; tasks.rt is nil when Options.Tasks is

	methods  customMethods // added with AddMethod
	chain    MethodHandler // Options.Middleware around handleMessage; nil without middleware
	askChain AskHandler    // Options.AskMiddleware around deliverAsk; nil without any

	// clientCaps and clientInfo are what modern requests' _meta declared.
	clientCaps metaMemo[mcp.ClientCapabilities]
	clientInfo metaMemo[mcp.Implementation]
}

// New returns a server that identifies itself as info. opts may be nil.
func New(info mcp.Implementation, opts *Options) *Server {
	s := &Server{info: info, now: time.Now, timer: realTimer}
	if opts != nil {
		s.opts = *opts
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.pageSize = s.opts.PageSize
	if s.pageSize <= 0 {
		s.pageSize = DefaultPageSize
	}
	s.stateTTL = s.opts.StateTTL
	if s.stateTTL <= 0 {
		s.stateTTL = DefaultStateTTL
	}
	if s.opts.ReadCache.Scope == "" {
		s.opts.ReadCache.Scope = mcp.CachePrivate
	}
	key := s.opts.StateKey
	if len(key) == 0 {
		key = randomKey()
	}
	s.states = newSealer(key, s.opts.PreviousStateKeys, "request-state")
	s.cursors = newSealer(key, s.opts.PreviousStateKeys, "cursor")
	raw, err := json.Marshal(info)
	if err != nil {
		panic("server: the server's Implementation cannot be encoded: " + err.Error())
	}
	s.serverInfo, s.serverInfoText = raw, string(raw)
	s.hub.init()
	s.tasks.init(s.opts.Tasks)
	s.chain = wrap.Chain(s.opts.Middleware, s.handleMessage)
	s.askChain = wrap.Chain(s.opts.AskMiddleware, deliverAsk)
	return s
}

// realTimer is a Server's timer: a time.Timer.
func realTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// modernVersions are the versions a request may name in
// _meta[MetaProtocolVersion]: the modern ones this build speaks.
func modernVersions() []string {
	var vs []string
	for _, v := range mcp.SupportedVersions() {
		if mcp.IsModern(v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// capabilities returns what the server declares to a client speaking version
// v: what is registered now, plus Options.Capabilities.
func (s *Server) capabilities(v string) mcp.ServerCapabilities {
	var c mcp.ServerCapabilities
	if s.opts.Capabilities != nil {
		c = *s.opts.Capabilities
	}
	c.Logging = mcp.JSONObject{}
	if mcp.SupportsCompletionsCapability(v) {
		c.Completions = mcp.JSONObject{}
	}
	if s.serves(featureTools) {
		c.Tools = &mcp.ToolsCapability{ListChanged: true}
	}
	if s.serves(featurePrompts) {
		c.Prompts = &mcp.PromptsCapability{ListChanged: true}
	}
	if s.serves(featureResources) {
		c.Resources = &mcp.ResourcesCapability{Subscribe: true, ListChanged: true}
	}
	c.Tasks = nil
	if mcp.IsModern(v) {
		// The 2025-11-25 tasks capability must not appear in the modern era;
		// the extension takes its place.
		c.Extensions = s.tasks.extensionCapability(c.Extensions)
	} else {
		// Extensions (SEP-2133) are declared in initialize too, all but the
		// tasks extension, which the 2025-11-25 tasks capability stands for.
		c.Extensions = maps.Clone(c.Extensions)
		delete(c.Extensions, mcp.ExtensionTasks)
		c.Tasks = s.tasks.legacyCapability(v)
	}
	if s.serves(featureSkills) || s.apps.Load() {
		c.Extensions = maps.Clone(c.Extensions)
		if c.Extensions == nil {
			c.Extensions = map[string]mcp.JSONObject{}
		}
		if s.serves(featureSkills) {
			c.Extensions[mcp.ExtensionSkills] = skillsCapability()
		}
		if s.apps.Load() {
			c.Extensions[mcp.ExtensionUI] = mcp.JSONObject{}
		}
	}
	if len(c.Extensions) == 0 {
		c.Extensions = nil
	}
	return c
}

// feature names a family of methods that is served only when declared.
type feature int

const (
	featureNone feature = iota
	featureTools
	featurePrompts
	featureResources
	featureTasks  // a task runtime is configured
	featureSkills // skills are registered (AddSkills)
)

// serves reports whether the server offers f now: something of that kind is
// registered, or Options.Capabilities declares it.
func (s *Server) serves(f feature) bool {
	c := s.opts.Capabilities
	switch f {
	case featureTools:
		return s.tools.len() > 0 || (c != nil && c.Tools != nil)
	case featurePrompts:
		return s.prompts.len() > 0 || (c != nil && c.Prompts != nil)
	case featureResources:
		return s.resources.len() > 0 || s.templates.len() > 0 || (c != nil && c.Resources != nil)
	case featureTasks:
		return s.tasks.rt != nil
	case featureSkills:
		return s.skills.skills.len() > 0
	}
	return true
}

// listCache returns the caching hint of a modern list result (or
// server/discover): Options.ListCache, whose scope, when not set, is
// private for a list that differs by caller (perCaller) and public for
// the others.
func (s *Server) listCache(perCaller bool) *mcp.CacheableResult {
	h := s.opts.ListCache
	if h.Scope == "" {
		h.Scope = mcp.CachePublic
		if perCaller {
			h.Scope = mcp.CachePrivate
		}
	}
	return cacheHint(h)
}

// cacheHint returns the wire form of h.
func cacheHint(h CacheHint) *mcp.CacheableResult {
	return &mcp.CacheableResult{TTLMs: h.TTL.Milliseconds(), CacheScope: h.Scope}
}

package server

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// fullServer returns a server with one of everything registered.
func fullServer(t *testing.T, opts *Options) *Server {
	t.Helper()
	s := newTestServer(t, opts)
	AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "hello", Description: "Says hello."}, func(context.Context, *Request, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://static", Name: "static"}, staticText("static text"))
	return s
}

// staticText is a resource handler that returns text.
func staticText(text string) ResourceHandler {
	return func(_ context.Context, _ *Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
	}
}

func TestInitialize_NegotiatesEveryLegacyVersion(t *testing.T) {
	s := fullServer(t, &Options{Instructions: "Use echo."})
	for _, v := range legacyVersions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, s, nil)
			res := c.mustCall(mcp.MethodInitialize, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, v))
			var ir mcp.InitializeResult
			decode(t, res, &ir)
			if ir.ProtocolVersion != v || ir.ServerInfo.Name != "weft-test" || ir.Instructions != "Use echo." {
				t.Fatalf("initialize result %s", res)
			}
			caps := ir.Capabilities
			if caps.Tools == nil || !caps.Tools.ListChanged || caps.Prompts == nil || caps.Resources == nil ||
				!caps.Resources.Subscribe || caps.Logging == nil {
				t.Errorf("capabilities %s do not declare what is served", res)
			}
			if got := caps.Completions != nil; got != (v != mcp.Version20241105) {
				t.Errorf("completions declared = %v in %s", got, v)
			}
			if member(t, res, "resultType") != "" {
				t.Errorf("a legacy result carries resultType: %s", res)
			}
			if c.session.ProtocolVersion() != v || c.session.ClientInfo().Name != "c" {
				t.Errorf("session records version %q, client %+v", c.session.ProtocolVersion(), c.session.ClientInfo())
			}
		})
	}
}

func TestInitialize_ServerInfoHasOnlyTheMembersOfTheVersion(t *testing.T) {
	s := New(mcp.Implementation{Name: "weft-test", Title: "Weft Test", Version: "1", Description: "A test server.",
		WebsiteURL: "https://example.com", Icons: []mcp.Icon{{Src: "https://example.com/i.png"}}}, nil)
	for _, v := range legacyVersions {
		c := connect(t, s, nil)
		res := c.mustCall(mcp.MethodInitialize, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, v))
		info := []byte(member(t, res, "serverInfo"))
		for name, since := range map[string]bool{
			"name": true, "version": true, "title": mcp.SupportsTitles(v),
			"description": mcp.SupportsIcons(v), "websiteUrl": mcp.SupportsIcons(v), "icons": mcp.SupportsIcons(v),
		} {
			if got := member(t, info, name) != ""; got != since {
				t.Errorf("%s: serverInfo %s has %s = %v, want %v", v, info, name, got, since)
			}
		}
	}
}

func TestInitialize_UnknownVersionGetsLatestLegacy(t *testing.T) {
	s := fullServer(t, nil)
	for _, asked := range []string{"1999-01-01", mcp.Version20260728, "not-a-version"} {
		c := connect(t, s, nil)
		res := c.mustCall(mcp.MethodInitialize, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, asked))
		if got := member(t, res, "protocolVersion"); got != `"`+mcp.LatestLegacyVersion+`"` {
			t.Errorf("asked %s, negotiated %s", asked, got)
		}
	}
}

func TestInitialize_DeclaresOnlyWhatIsServed(t *testing.T) {
	s := newTestServer(t, nil)
	c := connect(t, s, nil)
	res := c.mustCall(mcp.MethodInitialize, `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	caps := member(t, res, "capabilities")
	if caps != `{"logging":{},"completions":{}}` {
		t.Errorf("an empty server declares %s", caps)
	}
	c.version = mcp.Version20251125
	for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		if e := c.callErr(m, `{}`); e.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s on a server without it: %v, want -32601", m, e)
		}
	}
}

func TestInitialize_RequestsBeforeItAreRejected(t *testing.T) {
	s := fullServer(t, nil)
	c := connect(t, s, nil)
	e := c.callErr("tools/list", `{}`)
	if e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "initialize") || !strings.Contains(e.Message, mcp.MetaProtocolVersion) {
		t.Errorf("tools/list before initialize: %v", e)
	}
	if res := c.mustCall("ping", ``); string(res) != `{}` {
		t.Errorf("ping before initialize: %s, want {}", res)
	}
}

func TestInitialize_RequiredParamsMustBePresent(t *testing.T) {
	c := connect(t, fullServer(t, nil), nil)
	for params, missing := range map[string]string{
		``:                                 "protocolVersion, capabilities, clientInfo",
		`{}`:                               "protocolVersion, capabilities, clientInfo",
		`{"protocolVersion":"2025-06-18"}`: "capabilities, clientInfo",
		`{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`:                    "protocolVersion",
		`{"protocolVersion":"2025-06-18","capabilities":null,"clientInfo":{"name":"c"}}`: "capabilities",
	} {
		res, err := c.rawCall(mcp.MethodInitialize, params)
		e := wantRPCError(t, "initialize "+params, res, err)
		if e.Code != jsonrpc.CodeInvalidParams || !strings.HasSuffix(e.Message, "missing: "+missing) {
			t.Errorf("initialize %s: %v, want -32602 naming %s", params, e, missing)
		}
	}
	// None of them initialized the session: requests still need initialize,
	// and a complete initialize works.
	if e := c.callErr("tools/list", `{}`); !strings.Contains(e.Message, "initialize") {
		t.Errorf("tools/list after refused initializes: %v, want the not-initialized error", e)
	}
	c.mustCall(mcp.MethodInitialize, `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
}

func TestInitialize_OnlyOnce(t *testing.T) {
	c := open(t, fullServer(t, nil), mcp.Version20250618, `{}`, nil)
	e := c.callErr(mcp.MethodInitialize, `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	if e.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("second initialize: %v", e)
	}
}

func TestPing_EveryLegacyVersion(t *testing.T) {
	s := fullServer(t, nil)
	for _, v := range legacyVersions {
		c := open(t, s, v, `{}`, nil)
		if res := c.mustCall("ping", `{}`); string(res) != `{}` {
			t.Errorf("%s: ping answered %s", v, res)
		}
	}
}

func TestBatch_OnlyIn20250326(t *testing.T) {
	s := fullServer(t, nil)
	for _, v := range legacyVersions {
		t.Run(v, func(t *testing.T) {
			client, server := transport.Pipe()
			ss, err := s.Connect(context.Background(), server, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.Close(); ss.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			write := func(m jsonrpc.Message) {
				if err := client.Write(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			read := func() jsonrpc.Message {
				m, err := client.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			write(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize", Params: stdjson.RawMessage(
				fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, v))})
			read()
			write(&jsonrpc.Request{Method: "notifications/initialized"})
			write(jsonrpc.Batch{
				&jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "ping"},
				&jsonrpc.Request{ID: jsonrpc.Int64ID(3), Method: "tools/list"},
			})
			switch m := read().(type) {
			case jsonrpc.Batch:
				if v != mcp.Version20250326 || len(m) != 2 {
					t.Errorf("batch answered with %d responses in %s", len(m), v)
				}
			case *jsonrpc.Response:
				if v == mcp.Version20250326 || m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
					t.Errorf("batch in %s answered %+v", v, m)
				}
			}
		})
	}
}

func TestModern_DiscoverOnAConnection(t *testing.T) {
	s := fullServer(t, &Options{Instructions: "hi", ListCache: CacheHint{TTL: 90_000_000_000, Scope: mcp.CachePrivate}})
	c := open(t, s, mcp.Version20260728, `{}`, nil)
	res := c.mustCall(mcp.MethodServerDiscover, `{}`)
	var d mcp.DiscoverResult
	decode(t, res, &d)
	if len(d.SupportedVersions) != 1 || d.SupportedVersions[0] != mcp.Version20260728 {
		t.Errorf("supportedVersions %v", d.SupportedVersions)
	}
	if d.Capabilities.Tools == nil || d.Capabilities.Prompts == nil || d.Capabilities.Resources == nil || d.Instructions != "hi" {
		t.Errorf("discover %s", res)
	}
	if d.ResultType != mcp.ResultComplete || d.Cache == nil || d.Cache.TTLMs != 90_000 || d.Cache.CacheScope != mcp.CachePrivate {
		t.Errorf("discover lacks resultType or caching hints: %s", res)
	}
	if got := member(t, res, "_meta", mcp.MetaServerInfo); got != `{"name":"weft-test","version":"0.0.1"}` {
		t.Errorf("serverInfo in _meta = %s", got)
	}
	if c.session.ProtocolVersion() != "" {
		t.Errorf("a modern request initialized the session as %q", c.session.ProtocolVersion())
	}
}

func TestModern_MetaIsValidated(t *testing.T) {
	s := fullServer(t, nil)
	c := connect(t, s, nil)
	caps := `"io.modelcontextprotocol/clientCapabilities":{}`
	ver := `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	cases := []struct {
		name, meta string
		code       int64
		want       string
	}{
		{"missing version", caps, jsonrpc.CodeInvalidParams, mcp.MetaProtocolVersion},
		{"missing capabilities", ver, jsonrpc.CodeInvalidParams, mcp.MetaClientCapabilities},
		{"malformed capabilities", ver + `,"io.modelcontextprotocol/clientCapabilities":[]`, jsonrpc.CodeInvalidParams, mcp.MetaClientCapabilities},
		{"bad log level", ver + "," + caps + `,"io.modelcontextprotocol/logLevel":"loud"`, jsonrpc.CodeInvalidParams, "loud"},
		{"bad progress token", ver + "," + caps + `,"progressToken":true`, jsonrpc.CodeInvalidParams, "progress token"},
		{"unsupported version", `"io.modelcontextprotocol/protocolVersion":"2099-01-01",` + caps, mcp.CodeUnsupportedProtocolVersion, "Unsupported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.rawCall("server/discover", `{"_meta":{`+tc.meta+`}}`)
			e := wantRPCError(t, "server/discover", res, err)
			if e.Code != tc.code || !strings.Contains(e.Message, tc.want) {
				t.Errorf("got %v, want code %d mentioning %q", e, tc.code, tc.want)
			}
		})
	}
	res, err := c.rawCall("server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",`+caps+`}}`)
	e := wantRPCError(t, "server/discover", res, err)
	if string(e.Data) != `{"supported":["2026-07-28"],"requested":"2099-01-01"}` {
		t.Errorf("-32022 data = %s", e.Data)
	}
	if _, err := c.rawCall("server/discover", `{"_meta":{`+ver+","+caps+`}}`); err != nil {
		t.Errorf("a request without clientInfo must be served: %v", err)
	}
}

func TestModern_RemovedAndUnknownMethodsAreNotFound(t *testing.T) {
	c := open(t, fullServer(t, nil), mcp.Version20260728, `{}`, nil)
	for _, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "no/such/method", "tasks/list"} {
		params := `{}`
		switch m {
		case "logging/setLevel":
			params = `{"level":"info"}`
		case "resources/subscribe", "resources/unsubscribe":
			params = `{"uri":"test://static"}`
		case "initialize":
			params = `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`
		}
		if e := c.callErr(m, params); e.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s in the modern era: %v, want -32601", m, e)
		}
	}
	if c.session.ProtocolVersion() != "" {
		t.Errorf("a modern initialize initialized the session")
	}
}

func TestModern_EveryResultCarriesResultTypeAndServerInfo(t *testing.T) {
	s := fullServer(t, &Options{ReadCache: CacheHint{TTL: 5_000_000}})
	c := open(t, s, mcp.Version20260728, `{}`, nil)
	calls := []struct {
		method, params string
		cacheable      bool
	}{
		{"server/discover", `{}`, true},
		{"tools/list", `{}`, true},
		{"prompts/list", `{}`, true},
		{"resources/list", `{}`, true},
		{"resources/templates/list", `{}`, true},
		{"resources/read", `{"uri":"test://static"}`, true},
		{"tools/call", `{"name":"echo","arguments":{"text":"x"}}`, false},
		{"prompts/get", `{"name":"hello"}`, false},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"hello"},"argument":{"name":"a","value":""}}`, false},
	}
	for _, call := range calls {
		res := c.mustCall(call.method, call.params)
		if member(t, res, "resultType") != `"complete"` || member(t, res, "_meta", mcp.MetaServerInfo) == "" {
			t.Errorf("%s: %s lacks resultType or serverInfo", call.method, res)
		}
		hasHints := member(t, res, "ttlMs") != "" && member(t, res, "cacheScope") != ""
		if hasHints != call.cacheable {
			t.Errorf("%s: caching hints present = %v: %s", call.method, hasHints, res)
		}
	}
	res := c.mustCall("resources/read", `{"uri":"test://static"}`)
	if member(t, res, "ttlMs") != "5" || member(t, res, "cacheScope") != `"private"` {
		t.Errorf("resources/read hints: %s", res)
	}
}

func TestModern_LegacySessionIgnoresModernMeta(t *testing.T) {
	c := open(t, fullServer(t, nil), mcp.Version20250618, `{}`, nil)
	res := c.mustCall("tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	if member(t, res, "resultType") != "" {
		t.Errorf("an initialized session served a request as modern: %s", res)
	}
}

func TestBothErasOnOneServer(t *testing.T) {
	s := fullServer(t, nil)
	legacy := open(t, s, mcp.Version20251125, `{}`, nil)
	modern := open(t, s, mcp.Version20260728, `{}`, nil)
	for range 3 {
		l := legacy.mustCall("tools/call", `{"name":"echo","arguments":{"text":"a"}}`)
		m := modern.mustCall("tools/call", `{"name":"echo","arguments":{"text":"a"}}`)
		if member(t, l, "resultType") != "" || member(t, m, "resultType") != `"complete"` {
			t.Fatalf("legacy %s / modern %s", l, m)
		}
	}
}

package streamable

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
)

// modernHeaders returns the headers of a modern POST of method, naming
// name in Mcp-Name when it is not empty.
func modernHeaders(method, name string) hdr {
	h := hdr{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": mcp.Version20260728, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// modernBody returns a modern request body; params is a JSON object's
// members (without braces) to which _meta is added.
func modernBody(id, method, params string) string {
	meta := `"_meta":{"` + mcp.MetaProtocolVersion + `":"2026-07-28","` + mcp.MetaClientCapabilities + `":{}}`
	if params != "" {
		params = "," + params
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + meta + params + `}}`
}

func TestModernRequestIsAnsweredWithJSONAndNoSession(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	resp := do(t, "POST", url, modernHeaders("tools/call", "echo"), modernBody("1", "tools/call", `"name":"echo","arguments":{"text":"hi"}`))
	r := wantResponse(t, resp)
	if r.Error != nil || !bytes.Contains(r.Result, []byte(`"hi"`)) {
		t.Fatalf("got %v %s, want the echo", r.Error, r.Result)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a modern answer minted a session")
	}
}

func TestModernIgnoresMcpSessionID(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	h := modernHeaders("tools/call", "echo")
	h["Mcp-Session-Id"] = "stale-or-unknown"
	r := wantResponse(t, do(t, "POST", url, h, modernBody("1", "tools/call", `"name":"echo","arguments":{"text":"x"}`)))
	if r.Error != nil {
		t.Fatalf("a modern request with a stray Mcp-Session-Id failed: %v", r.Error)
	}
}

func TestModernHeaderValidation(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	call := modernBody("3", "tools/call", `"name":"echo","arguments":{"text":"x"}`)
	read := modernBody("4", "resources/read", `"uri":"file:///a b.txt"`)
	task := modernBody("5", "tasks/get", `"taskId":"t-1"`)
	result := modernBody("6", "tasks/result", `"taskId":"t-1"`)
	tests := []struct {
		name   string
		mutate func(hdr)
		body   string
		ok     bool
	}{
		{"all headers match", func(hdr) {}, call, true},
		{"MCP-Protocol-Version missing", func(h hdr) { delete(h, "Mcp-Protocol-Version") }, call, false},
		{"MCP-Protocol-Version differs from _meta", func(h hdr) { h["Mcp-Protocol-Version"] = "2025-11-25" }, call, false},
		{"Mcp-Method missing", func(h hdr) { delete(h, "Mcp-Method") }, call, false},
		{"Mcp-Method differs", func(h hdr) { h["Mcp-Method"] = "tools/list" }, call, false},
		{"Mcp-Method differs in case", func(h hdr) { h["Mcp-Method"] = "Tools/Call" }, call, false},
		{"Mcp-Name missing", func(h hdr) { delete(h, "Mcp-Name") }, call, false},
		{"Mcp-Name differs", func(h hdr) { h["Mcp-Name"] = "other" }, call, false},
		{"Mcp-Name in base64", func(h hdr) { h["Mcp-Name"] = "=?base64?ZWNobw==?=" }, call, true},
		{"Mcp-Name with invalid base64", func(h hdr) { h["Mcp-Name"] = "=?base64?!!!?=" }, call, false},
		{"whitespace around values", func(h hdr) { h["Mcp-Method"] = "  tools/call\t"; h["Mcp-Name"] = " echo " }, call, true},
		{"resources/read names the URI", func(h hdr) { h["Mcp-Method"] = "resources/read"; h["Mcp-Name"] = EncodeHeaderValue("file:///a b.txt") }, read, true},
		{"resources/read with another URI", func(h hdr) { h["Mcp-Method"] = "resources/read"; h["Mcp-Name"] = "file:///b" }, read, false},
		{"tasks/get names the task", func(h hdr) { h["Mcp-Method"] = "tasks/get"; h["Mcp-Name"] = "t-1" }, task, true},
		{"tasks/get without Mcp-Name", func(h hdr) { h["Mcp-Method"] = "tasks/get"; delete(h, "Mcp-Name") }, task, false},
		// Only the methods SEP-2663 names mirror taskId (mcp.NameParam):
		// tasks/result, gone from the modern era, reaches the server, which
		// answers -32601.
		{"tasks/result needs no Mcp-Name", func(h hdr) { h["Mcp-Method"] = "tasks/result"; delete(h, "Mcp-Name") }, result, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := modernHeaders("tools/call", "echo")
			tt.mutate(h)
			resp := do(t, "POST", url, h, tt.body)
			if tt.ok {
				if resp.StatusCode == http.StatusBadRequest {
					t.Fatalf("refused: %s", readAll(t, resp))
				}
				return
			}
			r := wantError(t, resp, http.StatusBadRequest, mcp.CodeHeaderMismatch)
			if r.ID.Raw() == "null" {
				t.Error("the -32020 error lost the request's id")
			}
		})
	}
}

func TestModernHeaderNamesAreCaseInsensitive(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	req := mustRequest(t, "POST", url, hdr{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
		modernBody("1", "tools/call", `"name":"echo","arguments":{"text":"x"}`))
	// Bypass canonicalization so the names go out in lower case.
	req.Header["mcp-protocol-version"] = []string{mcp.Version20260728}
	req.Header["mcp-method"] = []string{"tools/call"}
	req.Header["mcp-name"] = []string{"echo"}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantResponse(t, resp)
}

func TestModernParamHeaders(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{ToolInputSchema: toolSchema})
	body := func(args string) string {
		return modernBody("1", "tools/call", `"name":"region","arguments":`+args)
	}
	full := `{"region":"us-west1","count":42,"opts":{"flag":false}}`
	tests := []struct {
		name    string
		args    string
		headers hdr
		ok      bool
	}{
		{"all mirrored", full, hdr{"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "42", "Mcp-Param-Flag": "false"}, true},
		{"lower-case header names", full, hdr{"mcp-param-region": "us-west1", "MCP-PARAM-COUNT": "42", "mcp-param-flag": "false"}, true},
		{"integers compare numerically", `{"count":42.0}`, hdr{"Mcp-Param-Count": "42"}, true},
		{"base64 value", `{"region":"Hello, 世界"}`, hdr{"Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?="}, true},
		{"null argument needs no header", `{"region":null}`, hdr{}, true},
		{"undeclared Mcp-Param headers are ignored", `{}`, hdr{"Mcp-Param-Other": "x"}, true},
		{"value in body, header missing", full, hdr{"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "42"}, false},
		{"header differs from body", full, hdr{"Mcp-Param-Region": "eu-west1", "Mcp-Param-Count": "42", "Mcp-Param-Flag": "false"}, false},
		{"header without a value in the body", `{"count":1}`, hdr{"Mcp-Param-Count": "1", "Mcp-Param-Region": "x"}, false},
		{"invalid base64", `{"region":"x"}`, hdr{"Mcp-Param-Region": "=?base64?%%%?="}, false},
		{"raw non-ASCII value", `{"region":"é"}`, hdr{"Mcp-Param-Region": "é"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mustRequest(t, "POST", url, modernHeaders("tools/call", "region"), body(tt.args))
			for k, v := range tt.headers {
				req.Header[k] = []string{v}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if tt.ok {
				if r := wantResponse(t, resp); r.Error != nil {
					t.Fatalf("refused: %v", r.Error)
				}
				return
			}
			wantError(t, resp, http.StatusBadRequest, mcp.CodeHeaderMismatch)
		})
	}
}

func TestModernErrorStatuses(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	t.Run("unknown method is 404 with -32601", func(t *testing.T) {
		wantError(t, do(t, "POST", url, modernHeaders("no/such", ""), modernBody("1", "no/such", "")), http.StatusNotFound, jsonrpc.CodeMethodNotFound)
	})
	t.Run("unsupported version is 400 with -32022 and the supported list", func(t *testing.T) {
		body := strings.Replace(modernBody("1", "server/discover", ""), "2026-07-28", "2099-01-01", 1)
		h := modernHeaders("server/discover", "")
		h["Mcp-Protocol-Version"] = "2099-01-01"
		r := wantError(t, do(t, "POST", url, h, body), http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion)
		var data mcp.UnsupportedVersionData
		if json.Unmarshal(r.Error.Data, &data) != nil || len(data.Supported) == 0 || data.Requested != "2099-01-01" {
			t.Errorf("data %s, want supported and requested", r.Error.Data)
		}
	})
	t.Run("missing _meta is 400 with -32602", func(t *testing.T) {
		wantError(t, do(t, "POST", url, modernHeaders("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`),
			http.StatusBadRequest, jsonrpc.CodeInvalidParams)
	})
	t.Run("missing client capability is 400 with -32021", func(t *testing.T) {
		wantError(t, do(t, "POST", url, modernHeaders("tools/call", "needs-sampling"), modernBody("1", "tools/call", `"name":"needs-sampling"`)),
			http.StatusBadRequest, mcp.CodeMissingRequiredClientCapability)
	})
	t.Run("a batch is 400 with -32600", func(t *testing.T) {
		b := "[" + modernBody("1", "server/discover", "") + "]"
		wantError(t, do(t, "POST", url, modernHeaders("server/discover", ""), b), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	})
	t.Run("GET is 405", func(t *testing.T) {
		resp := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Protocol-Version": mcp.Version20260728}, "")
		wantError(t, resp, http.StatusMethodNotAllowed, codeTransport)
	})
	t.Run("DELETE is 405", func(t *testing.T) {
		wantError(t, do(t, "DELETE", url, hdr{"Mcp-Protocol-Version": mcp.Version20260728}, ""), http.StatusMethodNotAllowed, codeTransport)
	})
	t.Run("a panicking handler is an internal error", func(t *testing.T) {
		r := wantResponse(t, do(t, "POST", url, modernHeaders("tools/call", "panic"), modernBody("1", "tools/call", `"name":"panic"`)))
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError {
			t.Fatalf("got %v, want -32603", r.Error)
		}
	})
}

func TestModernSSEWhenNotificationsComeFirst(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	evs := events(t, do(t, "POST", url, modernHeaders("tools/call", "progress"), modernBody("8", "tools/call", `"name":"progress"`)))
	if len(evs) != 3 {
		t.Fatalf("got %d events, want 2 progress and the response: %+v", len(evs), evs)
	}
	for _, ev := range evs {
		if ev.ID != "" {
			t.Errorf("modern event has ID %q; modern streams are not resumable", ev.ID)
		}
	}
	if r, ok := message(t, evs[2]).(*jsonrpc.Response); !ok || r.ID.Raw() != "8" {
		t.Fatalf("last event %s, want the response", evs[2].Data)
	}
}

// openListen opens a subscriptions/listen stream for tool list changes; it
// is answered 200. cancel closes it, as a client going away does.
func openListen(t *testing.T, url string) (resp *http.Response, cancel context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := mustRequest(t, "POST", url, modernHeaders("subscriptions/listen", ""),
		modernBody("9", "subscriptions/listen", `"notifications":{"toolsListChanged":true}`))
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	wantStatus(t, resp, http.StatusOK)
	return resp, cancel
}

func TestListenStreamsEachNotificationAsItComes(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	resp, cancel := openListen(t, url)
	r := sse.NewReader(resp.Body, 1<<20)
	if n, ok := message(t, nextEvent(t, r)).(*jsonrpc.Request); !ok || n.Method != "notifications/subscriptions/acknowledged" {
		t.Fatal("the listen stream did not start with the acknowledgement")
	}
	for i := 0; i < 3; i++ {
		f.listen <- &jsonrpc.Request{Method: "notifications/tools/list_changed", Params: []byte(`{"n":` + string(rune('0'+i)) + `}`)}
		n, ok := message(t, nextEvent(t, r)).(*jsonrpc.Request)
		if !ok || n.Method != "notifications/tools/list_changed" {
			t.Fatalf("notification %d did not arrive on its own", i)
		}
	}
	cancel() // the client closes the stream
	if cause := <-f.ended; cause == nil {
		t.Fatal("closing the listen stream did not end the request's context")
	}
}

func TestClosingTheResponseCancelsTheRequest(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req := mustRequest(t, "POST", url, modernHeaders("tools/call", "block"), modernBody("1", "tools/call", `"name":"block"`))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-f.started
	cancel()
	if cause := <-f.ended; cause == nil {
		t.Fatal("the request's context did not end when the client went away")
	}
	<-errc
}

package cli

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// connectError says why connecting to t failed and what to type next: a
// server that does not answer, an endpoint that is not there, else the
// server's or the transport's own words.
func connectError(t target, err error) error {
	if t.url == "" {
		return protocolError("connecting to "+t.String(), err)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("no server answers at %s; is it running? (start one with: weft serve --http %s)", t.url, hostOf(t.url))
	}
	if status, ok := streamable.HTTPStatus(err); ok && status == http.StatusNotFound {
		u, perr := url.Parse(t.url)
		if perr == nil && !strings.HasSuffix(u.Path, "/mcp") {
			u.Path = strings.TrimSuffix(u.Path, "/") + "/mcp"
			return fmt.Errorf("nothing serves MCP at %s (HTTP 404); MCP endpoints are usually at /mcp: try %s", t.url, u)
		}
		return fmt.Errorf("nothing serves MCP at %s (HTTP 404); check the endpoint's path", t.url)
	}
	return protocolError("connecting to "+t.String(), err)
}

// hostOf returns the HOST:PORT of an http(s) URL.
func hostOf(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Host
	}
	return s
}

// missingCapabilityHint explains a missing required client capability
// error (-32021): the capabilities its data names, and the flag that
// provides each. It returns "" for any other error.
func missingCapabilityHint(je *jsonrpc.Error) string {
	if je.Code != mcp.CodeMissingRequiredClientCapability {
		return ""
	}
	var d mcp.MissingCapabilityData
	if len(je.Data) == 0 || json.Unmarshal(je.Data, &d) != nil {
		return "the server needs a client capability it does not name"
	}
	caps := d.RequiredCapabilities
	named, _ := json.Marshal(caps) // ClientCapabilities always encodes
	var todo []string
	if _, ok := caps.Extensions[mcp.ExtensionTasks]; ok || caps.Tasks != nil {
		todo = append(todo, "run the call as a task: add --task")
	}
	if caps.Sampling != nil {
		todo = append(todo, "answer the server's sampling requests: run on a terminal, or give --sample-command CMD")
	}
	if caps.Elicitation != nil {
		todo = append(todo, "answer the server's questions: run on a terminal, or give --answer FIELD=VALUE")
	}
	msg := "the server needs the client capability " + string(named)
	if len(todo) > 0 {
		msg += "; " + strings.Join(todo, "; ")
	}
	return msg
}

// schemeless reports whether s looks like an HTTP endpoint written without
// its scheme (127.0.0.1:8080/mcp, localhost:8080), and returns it with one.
func schemeless(s string) (string, bool) {
	if strings.Contains(s, "://") || strings.HasPrefix(s, "-") {
		return "", false
	}
	hostport, _, _ := strings.Cut(s, "/")
	host, port, ok := strings.Cut(hostport, ":")
	if !ok || port == "" || strings.Trim(port, "0123456789") != "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-[]:") != "" || host == "" {
		return "", false
	}
	return "http://" + s, true
}

package client

import (
	"fmt"
	"maps"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/mcp"
)

// modernMeta encodes the _meta members every modern request carries at
// version v: the version, the capabilities the handlers declare (with the
// tasks extension when tasks is set) and the client's identity.
func (c *Client) modernMeta(v string, tasks bool) (mcp.Meta, error) {
	caps := c.opts.capabilities(v)
	if tasks {
		caps.Extensions = maps.Clone(caps.Extensions)
		if caps.Extensions == nil {
			caps.Extensions = map[string]mcp.JSONObject{}
		}
		caps.Extensions[mcp.ExtensionTasks] = mcp.JSONObject{}
	}
	meta := make(mcp.Meta, 4)
	for key, val := range map[string]any{
		mcp.MetaProtocolVersion:    v,
		mcp.MetaClientCapabilities: caps,
		mcp.MetaClientInfo:         c.impl,
	} {
		raw, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("client: encoding _meta[%q]: %w", key, err)
		}
		meta[key] = raw
	}
	return meta, nil
}

// requestMeta returns the _meta of an outgoing request: the caller's own
// members, then the modern per-request members (when st is modern; with the
// tasks extension declared when tasks is set), the log level and the
// progress token. It returns the caller's map unchanged when there is
// nothing to add, and otherwise a new map.
func requestMeta(own mcp.Meta, st *negotiated, tasks bool, level mcp.LoggingLevel, token mcp.ProgressToken) mcp.Meta {
	modern := st != nil && st.modern
	if !modern && !token.IsValid() {
		return own
	}
	meta := make(mcp.Meta, len(own)+5)
	maps.Copy(meta, own)
	if modern {
		if tasks {
			maps.Copy(meta, st.taskMeta)
		} else {
			maps.Copy(meta, st.meta)
		}
		if level != "" {
			meta[mcp.MetaLogLevel] = quote(string(level))
		}
	}
	if token.IsValid() {
		meta[mcp.MetaProgressToken] = []byte(token.Raw())
	}
	return meta
}

// quote returns s as a JSON string. Its only error is invalid UTF-8, which
// it replaces; the levels quoted here are validated ASCII names anyway.
func quote(s string) []byte {
	b, _ := jsontext.AppendQuote(nil, s)
	return b
}

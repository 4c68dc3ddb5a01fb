package main

import "encoding/json"

// JSON-RPC error codes the server answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// latestVersion is the newest legacy protocol version the server speaks; it
// is offered when a client asks for one the server does not know.
const latestVersion = "2025-11-25"

// toolsListResult is the fixed answer to tools/list.
const toolsListResult = `{"tools":[{"name":"echo","description":"Returns the text it is given.",` +
	`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`

// message is an incoming JSON-RPC request or notification.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// isNotification reports whether m expects no answer.
func (m *message) isNotification() bool { return len(m.ID) == 0 }

// response is an outgoing JSON-RPC answer carrying a result or an error.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// initializeParams is the part of initialize's params the server reads.
type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// echoArgs is the echo tool's input; Text is nil when it is missing.
type echoArgs struct {
	Text *string `json:"text"`
}

// initializeResult is the answer to initialize.
type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      serverInfo     `json:"serverInfo"`
}

// serverInfo names this server in the initialize result.
type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// callResult is the answer to a tools/call.
type callResult struct {
	Content [1]textContent `json:"content"`
	IsError bool           `json:"isError,omitempty"`
}

// textContent is one text content block.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// negotiate returns the version the server answers a client asking for requested.
func negotiate(requested string) string {
	switch requested {
	case "2024-11-05", "2025-03-26", "2025-06-18", latestVersion:
		return requested
	}
	return latestVersion
}

// decode parses one JSON-RPC message, or returns the error response to send.
func decode(data []byte) (*message, *response) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, errorResponse(nil, codeParseError, "the message is not a JSON-RPC object: "+err.Error())
	}
	if m.JSONRPC != "2.0" || m.Method == "" {
		return nil, errorResponse(m.ID, codeInvalidRequest, `a request needs "jsonrpc":"2.0" and a method`)
	}
	return &m, nil
}

// respond answers one raw message on a connection without sessions (stdio);
// it returns nil when no answer is due.
func respond(data []byte) *response {
	m, bad := decode(data)
	if bad != nil {
		return bad
	}
	return handle(m)
}

// handle answers a message; it returns nil for notifications. (Over HTTP,
// initialize is answered before handle, since it opens a session.)
func handle(m *message) *response {
	if m.isNotification() {
		return nil
	}
	switch m.Method {
	case "ping":
		return &response{JSONRPC: "2.0", ID: m.ID, Result: struct{}{}}
	case "tools/list":
		return &response{JSONRPC: "2.0", ID: m.ID, Result: json.RawMessage(toolsListResult)}
	case "tools/call":
		return callEcho(m)
	case "initialize":
		version, bad := initializeVersion(m)
		if bad != nil {
			return bad
		}
		return initializeResponse(m.ID, version)
	default:
		return errorResponse(m.ID, codeMethodNotFound, "this server has no method "+m.Method)
	}
}

// initializeVersion returns the version to answer initialize m with, or the
// error response to send.
func initializeVersion(m *message) (string, *response) {
	var p initializeParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return "", errorResponse(m.ID, codeInvalidParams, "initialize params need a protocolVersion string: "+err.Error())
	}
	return negotiate(p.ProtocolVersion), nil
}

// initializeResponse answers initialize with the negotiated version.
func initializeResponse(id json.RawMessage, version string) *response {
	return &response{JSONRPC: "2.0", ID: id, Result: initializeResult{
		ProtocolVersion: version,
		Capabilities:    map[string]any{"tools": struct{}{}},
		ServerInfo:      serverInfo{Name: "bare", Version: "1.0.0"},
	}}
}

// callEcho runs the echo tool. Arguments that do not fit its input schema
// are a tool error (isError), so the caller can correct them.
func callEcho(m *message) *response {
	var p callParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return errorResponse(m.ID, codeInvalidParams, "tools/call params are malformed: "+err.Error())
	}
	if p.Name != "echo" {
		return errorResponse(m.ID, codeInvalidParams, "unknown tool "+p.Name+"; this server has only echo")
	}
	var args echoArgs
	if err := json.Unmarshal(p.Arguments, &args); err != nil || args.Text == nil {
		return toolResult(m.ID, "echo needs arguments.text, a string", true)
	}
	return toolResult(m.ID, *args.Text, false)
}

// toolResult answers a tools/call with one text block.
func toolResult(id json.RawMessage, text string, isError bool) *response {
	return &response{JSONRPC: "2.0", ID: id, Result: callResult{
		Content: [1]textContent{{Type: "text", Text: text}},
		IsError: isError,
	}}
}

// errorResponse builds an error answer; a missing id is sent as null.
func errorResponse(id json.RawMessage, code int, text string) *response {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: text}}
}

// encode marshals r followed by a newline.
func encode(r *response) []byte {
	data, err := json.Marshal(r)
	if err != nil {
		// Every field is a plain type or validated JSON, so this cannot fail;
		// answer with an internal error rather than silently dropping it.
		data, _ = json.Marshal(errorResponse(r.ID, -32603, "the server could not encode its answer: "+err.Error()))
	}
	return append(data, '\n')
}

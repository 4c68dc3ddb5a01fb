// Package mcpwire is the benchmark's own MCP client: raw JSON-RPC over stdio
// or Streamable HTTP that treats every server alike and checks every answer.
//
// It speaks the legacy era: initialize (ProtocolVersion), then
// notifications/initialized, then tools/call of the echo tool; and, for the
// io.modelcontextprotocol/tasks extension, modern requests (ModernVersion).
package mcpwire

import (
	"encoding/json"
	"fmt"
)

// ProtocolVersion is the version the client asks for and insists on.
const ProtocolVersion = "2025-11-25"

// ModernVersion is the version of the modern requests (no handshake, _meta
// on every request) that carry the io.modelcontextprotocol/tasks extension.
const ModernVersion = "2026-07-28"

// ToolName is the one tool every benchmark server offers.
const ToolName = "echo"

// initializeParams is what the client sends with initialize.
const initializeParams = (`{"protocolVersion":"` + ProtocolVersion +
	`","capabilities":{},"clientInfo":{"name":"weft-bench","version":"1.0.0"}}`)

// initializedNotification completes the handshake.
const initializedNotification = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// request is an outgoing JSON-RPC request.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// echoParams are the params of a tools/call of echo.
type echoParams struct {
	Name      string   `json:"name"`
	Arguments echoArgs `json:"arguments"`
}

// echoArgs is the echo tool's input.
type echoArgs struct {
	Text string `json:"text"`
}

// envelope is any incoming JSON-RPC message: a response (ID with Result or
// Error), a notification (Method) or a server request (Method and ID).
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *wireError      `json:"error"`
}

// wireError is a JSON-RPC error object.
type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// encodeRequest marshals a request with id, method and params.
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	data, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", method, err)
	}
	return data, nil
}

// decodeEnvelope parses one incoming message.
func decodeEnvelope(data []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return env, fmt.Errorf("the server sent a message that is not JSON-RPC (%w): %.200q", err, data)
	}
	if env.JSONRPC != "2.0" {
		return env, fmt.Errorf(`the server sent a message without "jsonrpc":"2.0": %.200q`, data)
	}
	return env, nil
}

// serverRequestError describes a request the server sent, which this client
// cannot answer because it declares no client capabilities.
func serverRequestError(env envelope) error {
	return fmt.Errorf("the server sent request %s (id %s); the benchmark client declares no capabilities and cannot answer it", env.Method, env.ID)
}

// resultOf returns the result of response env, or an error naming method.
func resultOf(env envelope, method string) (json.RawMessage, error) {
	if env.Error != nil {
		return nil, fmt.Errorf("%s failed: JSON-RPC error %d: %s", method, env.Error.Code, env.Error.Message)
	}
	if len(env.Result) == 0 {
		return nil, fmt.Errorf("%s answered with neither result nor error", method)
	}
	return env.Result, nil
}

// checkInitialize verifies the initialize result: the version asked for and a
// tools capability.
func checkInitialize(result json.RawMessage) error {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("initialize result is malformed: %w", err)
	}
	if r.ProtocolVersion != ProtocolVersion {
		return fmt.Errorf("the server negotiated protocol version %q; the benchmark needs %s", r.ProtocolVersion, ProtocolVersion)
	}
	if len(r.Capabilities.Tools) == 0 {
		return fmt.Errorf("the server declares no tools capability; it cannot serve the %s tool", ToolName)
	}
	return nil
}

// checkEcho verifies that result is the echo tool's successful answer to text.
func checkEcho(result json.RawMessage, text string) error {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("tools/call result is malformed: %w", err)
	}
	if r.IsError {
		return fmt.Errorf("the echo tool reported an error: %.200q", result)
	}
	if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != text {
		return fmt.Errorf("echo of %q answered %.200q, want one text block with the same text", text, result)
	}
	return nil
}

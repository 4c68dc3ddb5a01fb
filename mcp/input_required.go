package mcp

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
)

// InputRequiredResult asks the client for input before the request can
// complete (multi round-trip requests, 2026-07-28; only for the methods
// AllowsInputRequired names). ResultType is ResultInputRequired and at least
// one of InputRequests and RequestState is set. The client answers every
// request and retries the same method with a new JSON-RPC ID, InputResponses
// under the same keys and RequestState echoed exactly.
type InputRequiredResult struct {
	Result
	InputRequests InputRequests `json:"inputRequests,omitempty"`
	// RequestState is opaque to the client. The server treats what comes
	// back as attacker-controlled.
	RequestState string `json:"requestState,omitempty"`
}

// InputRequests maps server-chosen keys to the requests the client must answer.
// The tasks extension uses the same map on an input_required task.
type InputRequests map[string]InputRequest

// InputRequest is a server-to-client request carried inside a result: a method
// (elicitation/create, sampling/createMessage or roots/list) and its params,
// without a JSON-RPC ID. Params stay raw so they pass through unchanged.
type InputRequest struct {
	Method string             `json:"method"`
	Params stdjson.RawMessage `json:"params,omitzero"`
}

// NewInputRequest builds an input request for method with params encoded
// (nil params are omitted, as roots/list allows).
func NewInputRequest(method string, params any) (InputRequest, error) {
	r := InputRequest{Method: method}
	if params == nil {
		return r, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return InputRequest{}, fmt.Errorf("%s input request params could not be encoded: %w", method, err)
	}
	r.Params = raw
	return r, nil
}

// ElicitParams decodes the params of an elicitation/create input request.
func (r InputRequest) ElicitParams() (ElicitParams, error) {
	var p ElicitParams
	err := r.decodeParams(MethodElicitationCreate, &p)
	return p, err
}

// CreateMessageParams decodes the params of a sampling/createMessage input request.
func (r InputRequest) CreateMessageParams() (CreateMessageParams, error) {
	var p CreateMessageParams
	err := r.decodeParams(MethodSamplingCreateMessage, &p)
	return p, err
}

// decodeParams checks the method and decodes the params into v.
func (r InputRequest) decodeParams(method string, v any) error {
	if r.Method != method {
		return fmt.Errorf("input request is %q, not %q", r.Method, method)
	}
	if r.Params == nil {
		return fmt.Errorf("%s input request has no params", method)
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return fmt.Errorf("%s input request params are malformed: %w", method, err)
	}
	return nil
}

// RequiredCapabilities returns the client capabilities needed to answer r, for
// checking against the request's declared capabilities with Covers before
// asking: elicitation (URL mode for mode "url"), sampling (with tools when the
// request offers tools, with context when it asks for more than "none"), or
// roots. An unknown method or malformed params is an error.
func (r InputRequest) RequiredCapabilities() (ClientCapabilities, error) {
	switch r.Method {
	case MethodElicitationCreate:
		p, err := r.ElicitParams()
		if err != nil {
			return ClientCapabilities{}, err
		}
		if p.Mode == ElicitModeURL {
			return ClientCapabilities{Elicitation: &ElicitationCapability{URL: JSONObject{}}}, nil
		}
		return ClientCapabilities{Elicitation: &ElicitationCapability{}}, nil
	case MethodSamplingCreateMessage:
		p, err := r.CreateMessageParams()
		if err != nil {
			return ClientCapabilities{}, err
		}
		s := &SamplingCapability{}
		if len(p.Tools) > 0 || p.ToolChoice != nil {
			s.Tools = JSONObject{}
		}
		if p.IncludeContext != "" && p.IncludeContext != IncludeContextNone {
			s.Context = JSONObject{}
		}
		return ClientCapabilities{Sampling: s}, nil
	case MethodRootsList:
		return ClientCapabilities{Roots: &RootsCapability{}}, nil
	}
	return ClientCapabilities{}, fmt.Errorf("%q cannot be an input request; want %s, %s or %s",
		r.Method, MethodElicitationCreate, MethodSamplingCreateMessage, MethodRootsList)
}

// InputResponses maps the keys of InputRequests to the client's bare results
// (ElicitResult, CreateMessageResult or ListRootsResult, without resultType).
// Values stay raw so they pass through unchanged; the accessors decode them.
type InputResponses map[string]stdjson.RawMessage

// Decode decodes the response at key into v. An absent key gives an error
// wrapping ErrAbsent: the server should ask again rather than fail.
func (r InputResponses) Decode(key string, v any) error {
	raw, ok := r[key]
	if !ok {
		return fmt.Errorf("input response %q: %w", key, ErrAbsent)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("input response %q is malformed: %w", key, err)
	}
	return nil
}

// ElicitResult decodes the answer to an elicitation/create input request.
func (r InputResponses) ElicitResult(key string) (ElicitResult, error) {
	var v ElicitResult
	err := r.Decode(key, &v)
	return v, err
}

// CreateMessageResult decodes the answer to a sampling/createMessage input request.
func (r InputResponses) CreateMessageResult(key string) (CreateMessageResult, error) {
	var v CreateMessageResult
	err := r.Decode(key, &v)
	return v, err
}

// ListRootsResult decodes the answer to a roots/list input request.
func (r InputResponses) ListRootsResult(key string) (ListRootsResult, error) {
	var v ListRootsResult
	err := r.Decode(key, &v)
	return v, err
}

// InputResponseParams is the base of the params of requests that may be
// answered with an InputRequiredResult (tools/call, prompts/get,
// resources/read): on a retry they carry the answers and the echoed state.
// Clients must not send these members on other requests.
type InputResponseParams struct {
	RequestParams
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	RequestState   string         `json:"requestState,omitempty"`
}

// InputResponseBase returns the retry fields, so code generic over the three
// retryable params types can reach them.
func (p *InputResponseParams) InputResponseBase() *InputResponseParams { return p }

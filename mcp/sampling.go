package mcp

import stdjson "encoding/json"

// CreateMessageParams are the params of sampling/createMessage: a request
// that the client sample an LLM. Sampling is deprecated in 2026-07-28 but
// still works, as an input request there.
type CreateMessageParams struct {
	RequestParams
	Messages         []SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitzero"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	// IncludeContext asks for context from MCP servers; values other than
	// "none" need the client's sampling.context capability (2025-11-25+) and
	// are deprecated.
	IncludeContext IncludeContext `json:"includeContext,omitempty"`
	Temperature    *float64       `json:"temperature,omitzero"`
	// MaxTokens is the most tokens to sample; required.
	MaxTokens     int64    `json:"maxTokens"`
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata passes through to the LLM provider, raw.
	Metadata stdjson.RawMessage `json:"metadata,omitzero"`
	// Tools the model may use (2025-11-25+; needs sampling.tools).
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice controls tool use (2025-11-25+; needs sampling.tools).
	ToolChoice *ToolChoice `json:"toolChoice,omitzero"`
	// Task asks the client for a 2025-11-25 task.
	Task *TaskMetadata `json:"task,omitzero"`
}

// IncludeContext is which servers' context to attach to a sampling prompt.
type IncludeContext string

// IncludeContext values.
const (
	IncludeContextNone       IncludeContext = "none"
	IncludeContextThisServer IncludeContext = "thisServer" // deprecated
	IncludeContextAllServers IncludeContext = "allServers" // deprecated
)

// ToolChoice controls how a sampled model uses tools (2025-11-25+).
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
}

// ToolChoiceMode is how the model may use tools.
type ToolChoiceMode string

// Tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"     // the model decides (default)
	ToolChoiceRequired ToolChoiceMode = "required" // the model must use a tool
	ToolChoiceNone     ToolChoiceMode = "none"     // the model must not use tools
)

// SamplingMessage is a message to or from an LLM. Content holds one block, or
// several from 2025-11-25 on (see SamplingContents).
type SamplingMessage struct {
	Role    Role             `json:"role"`
	Content SamplingContents `json:"content"`
	Meta    Meta             `json:"_meta,omitempty"` // 2025-11-25+
}

// CreateMessageResult answers sampling/createMessage: the sampled message. As
// a modern input response it carries no resultType.
type CreateMessageResult struct {
	Result
	Role    Role             `json:"role"`
	Content SamplingContents `json:"content"`
	// Model names the model that produced the message.
	Model string `json:"model"`
	// StopReason is why sampling stopped; open to provider-specific values.
	StopReason string `json:"stopReason,omitempty"`
}

// Standard stop reasons.
const (
	StopReasonEndTurn      = "endTurn"
	StopReasonStopSequence = "stopSequence"
	StopReasonMaxTokens    = "maxTokens"
	StopReasonToolUse      = "toolUse" // 2025-11-25+
)

// ModelPreferences are the server's advisory priorities for model choice.
type ModelPreferences struct {
	// Hints are evaluated in order; the first match wins.
	Hints []ModelHint `json:"hints,omitempty"`
	// The priorities run from 0 (unimportant) to 1 (most important).
	CostPriority         *float64 `json:"costPriority,omitzero"`
	SpeedPriority        *float64 `json:"speedPriority,omitzero"`
	IntelligencePriority *float64 `json:"intelligencePriority,omitzero"`
}

// ModelHint suggests a model, by a name substring the client may map.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

package mcp

import "testing"

func TestCreateMessageParamsExamples(t *testing.T) {
	// Spec example: CreateMessageRequestParams/basic-request.
	p := roundTrip[CreateMessageParams](t, `{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],
	  "modelPreferences":{"hints":[{"name":"claude-3-sonnet"}],"intelligencePriority":0.8,"speedPriority":0.5},
	  "systemPrompt":"You are a helpful assistant.","maxTokens":100}`, "")
	if p.MaxTokens != 100 || *p.ModelPreferences.SpeedPriority != 0.5 || p.ModelPreferences.CostPriority != nil {
		t.Errorf("params decoded as %+v", p)
	}
	// Spec example: CreateMessageRequestParams/follow-up-with-tool-results.
	p = roundTrip[CreateMessageParams](t, `{"messages":[
	  {"role":"user","content":{"type":"text","text":"What's the weather like in Paris and London?"}},
	  {"role":"assistant","content":[
	    {"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}},
	    {"type":"tool_use","id":"call_def456","name":"get_weather","input":{"city":"London"}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","toolUseId":"call_abc123","content":[{"type":"text","text":"Weather in Paris: 18°C, partly cloudy"}]},
	    {"type":"tool_result","toolUseId":"call_def456","content":[{"type":"text","text":"Weather in London: 15°C, rainy"}]}]}],
	  "tools":[{"name":"get_weather","description":"Get current weather for a city",
	    "inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],
	  "toolChoice":{"mode":"auto"},"maxTokens":1000}`, "")
	if tu, ok := p.Messages[1].Content[1].(*ToolUseContent); !ok || tu.ID != "call_def456" {
		t.Errorf("tool use decoded as %#v", p.Messages[1].Content[1])
	}
	if p.ToolChoice.Mode != ToolChoiceAuto || len(p.Tools) != 1 {
		t.Errorf("tools decoded as %+v %+v", p.Tools, p.ToolChoice)
	}
	// 2025-11-25 task-augmented sampling with deprecated context inclusion.
	p = roundTrip[CreateMessageParams](t, `{"messages":[],"includeContext":"thisServer","temperature":0,"maxTokens":1,
	  "stopSequences":["\n"],"metadata":{"k":[1]},"task":{"ttl":1000}}`, "")
	if p.Temperature == nil || *p.Temperature != 0 || p.Task == nil {
		t.Errorf("params decoded as %+v", p)
	}
}

func TestCreateMessageResultExamples(t *testing.T) {
	// Spec examples: CreateMessageResult/text-response and tool-use-response.
	r := roundTrip[CreateMessageResult](t, `{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},
	  "model":"claude-3-sonnet-20240307","stopReason":"endTurn"}`, "")
	if r.StopReason != StopReasonEndTurn || r.ResultType != "" {
		t.Errorf("result decoded as %+v", r)
	}
	r = roundTrip[CreateMessageResult](t, `{"role":"assistant","content":[
	  {"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}},
	  {"type":"tool_use","id":"call_def456","name":"get_weather","input":{"city":"London"}}],
	  "model":"claude-3-sonnet-20240307","stopReason":"toolUse"}`, "")
	if len(r.Content) != 2 || r.StopReason != StopReasonToolUse {
		t.Errorf("result decoded as %+v", r)
	}
}

package mcp

import (
	stdjson "encoding/json"

	"github.com/weftmcp/weft/jsonrpc"
)

// stdjsonSamples maps the name of every exported type of package mcp to a
// pointer to a populated value of it: every exported field set, so that a
// member either encoder gets wrong shows. An interface type maps instead to
// a list holding one value of each of its implementations. An alias of
// another mcp type needs no entry of its own. TestEveryTypeEncodesAlikeUnderBothEncoders
// fails for an exported type missing here.
var stdjsonSamples = map[string]any{
	"Annotations":  sampleAnnotations(),
	"AudioContent": &AudioContent{Data: []byte{0, 1, 2}, MIMEType: "audio/wav", Annotations: sampleAnnotations(), Meta: sampleMeta()},
	"BlobResourceContents": &BlobResourceContents{URI: "file:///b.bin", MIMEType: "application/octet-stream",
		Blob: []byte{0xff, 0}, Meta: sampleMeta()},
	"CacheScope":      ptr(CachePrivate),
	"CacheableResult": &CacheableResult{TTLMs: 60000, CacheScope: CachePublic},
	"CallToolParams": &CallToolParams{InputResponseParams: sampleInputResponseParams(), Name: "add",
		Arguments: raw(`{"a":1}`), Task: &TaskMetadata{TTL: ptr(int64(1000))}},
	"CallToolResult": &CallToolResult{Result: sampleResult(), Content: Contents{sampleText(), sampleEmbedded()},
		StructuredContent: raw(`{"n":1}`), IsError: true},
	"CancelTaskParams": &CancelTaskParams{RequestParams: sampleRequestParams(), TaskID: "t1"},
	"CancelTaskResult": &CancelTaskResult{Result: sampleResult(), Task: sampleTask()},
	"CancelledNotificationParams": &CancelledNotificationParams{NotificationParams: sampleNotificationParams(),
		RequestID: jsonrpc.Int64ID(7), Reason: "no longer needed"},
	"ClientCapabilities":    sampleClientCapabilities(),
	"ClientTaskRequests":    sampleClientCapabilities().Tasks.Requests,
	"ClientTasksCapability": sampleClientCapabilities().Tasks,
	"CompleteArgument":      &CompleteArgument{Name: "language", Value: "py"},
	"CompleteContext":       &CompleteContext{Arguments: map[string]string{"framework": "flask", "a": "b"}},
	"CompleteParams": &CompleteParams{RequestParams: sampleRequestParams(),
		Ref:      Reference{Type: ReferenceResource, Name: "n", Title: "T", URI: "file:///{path}"},
		Argument: CompleteArgument{Name: "path", Value: "src"},
		Context:  &CompleteContext{Arguments: map[string]string{"root": "/"}}},
	"CompleteResult": &CompleteResult{Result: sampleResult(), Completion: *sampleCompletion()},
	"Completion":     sampleCompletion(),
	"Content":        &Contents{sampleText(), sampleImage(), sampleAudio(), sampleResourceLink(), sampleEmbedded()},
	"Contents":       &Contents{sampleText(), sampleResourceLink()},
	"CreateMessageParams": &CreateMessageParams{RequestParams: sampleRequestParams(),
		Messages:         []SamplingMessage{*sampleSamplingMessage()},
		ModelPreferences: sampleModelPreferences(), SystemPrompt: "Be brief.",
		IncludeContext: IncludeContextThisServer, Temperature: ptr(0.7), MaxTokens: 100,
		StopSequences: []string{"STOP"}, Metadata: raw(`{"k":"v"}`), Tools: []Tool{*sampleTool()},
		ToolChoice: &ToolChoice{Mode: ToolChoiceRequired}, Task: &TaskMetadata{TTL: ptr(int64(5))}},
	"CreateMessageResult": &CreateMessageResult{Result: sampleResult(), Role: RoleAssistant,
		Content: SamplingContents{sampleText(), sampleToolUse()}, Model: "m-1", StopReason: StopReasonToolUse},
	"CreateTaskResult": &CreateTaskResult{Result: sampleResult(), Task: sampleTask()},
	"DetailedTask":     sampleDetailedTask(),
	"DiscoverResult": &DiscoverResult{Result: sampleResult(), Cache: sampleCache(),
		SupportedVersions: []string{Version20251125, Version20260728}, Capabilities: *sampleServerCapabilities(),
		Instructions: "Use the tools."},
	"ElicitAction":     ptr(ElicitDecline),
	"ElicitMode":       ptr(ElicitModeURL),
	"ElicitParams":     sampleElicitParams(),
	"ElicitProperties": &sampleElicitSchema().Properties,
	"ElicitProperty":   &sampleElicitSchema().Properties[0],
	"ElicitResult": &ElicitResult{Result: sampleResult(), Action: ElicitAccept,
		Content: JSONObject{"name": raw(`"Ada"`), "age": raw(`36`)}},
	"ElicitSchema":          sampleElicitSchema(),
	"ElicitationCapability": sampleClientCapabilities().Elicitation,
	"ElicitationCompleteNotificationParams": &ElicitationCompleteNotificationParams{
		NotificationParams: sampleNotificationParams(), ElicitationID: "e1"},
	"ElicitationTaskRequests": sampleClientCapabilities().Tasks.Requests.Elicitation,
	"EmbeddedResource":        sampleEmbedded(),
	"EnumItems":               sampleEnumItems(),
	"EnumOption":              &EnumOption{Const: "r", Title: "Red"},
	"ExtCreateTaskResult":     &ExtCreateTaskResult{Result: sampleResult(), ExtTask: sampleExtTask()},
	"ExtGetTaskResult":        &ExtGetTaskResult{Result: sampleResult(), DetailedTask: *sampleDetailedTask()},
	"ExtTask":                 ptr(sampleExtTask()),
	"ExtTaskStatusNotificationParams": &ExtTaskStatusNotificationParams{NotificationParams: sampleNotificationParams(),
		DetailedTask: *sampleDetailedTask()},
	"GetPromptParams": &GetPromptParams{InputResponseParams: sampleInputResponseParams(), Name: "review",
		Arguments: map[string]string{"code": "x := 1", "lang": "go"}},
	"GetPromptResult": &GetPromptResult{Result: sampleResult(), Description: "A review",
		Messages: []PromptMessage{*samplePromptMessage(), {Role: RoleAssistant, Content: sampleEmbedded()}}},
	"GetTaskParams":        &GetTaskParams{RequestParams: sampleRequestParams(), TaskID: "t1"},
	"GetTaskPayloadParams": &GetTaskPayloadParams{RequestParams: sampleRequestParams(), TaskID: "t1"},
	"GetTaskResult":        &GetTaskResult{Result: sampleResult(), Task: sampleTask()},
	"Icon":                 &sampleIcons()[0],
	"IconTheme":            ptr(IconThemeLight),
	"ImageContent":         sampleImage(),
	"Implementation":       sampleImplementation(),
	"IncludeContext":       ptr(IncludeContextAllServers),
	"InitializeParams": &InitializeParams{RequestParams: sampleRequestParams(), ProtocolVersion: Version20251125,
		Capabilities: *sampleClientCapabilities(), ClientInfo: *sampleImplementation()},
	"InitializeResult": &InitializeResult{Result: sampleResult(), ProtocolVersion: Version20251125,
		Capabilities: *sampleServerCapabilities(), ServerInfo: *sampleImplementation(), Instructions: "Hello."},
	"InputRequest":  ptr(sampleInputRequests()["ask"]),
	"InputRequests": ptr(sampleInputRequests()),
	"InputRequiredResult": &InputRequiredResult{Result: sampleResult(), InputRequests: sampleInputRequests(),
		RequestState: "opaque"},
	"InputResponseParams": ptr(sampleInputResponseParams()),
	"InputResponses":      ptr(sampleInputResponseParams().InputResponses),
	"JSONObject":          ptr(JSONObject{"b": raw(`true`), "a": raw(`{"n":[1,2]}`)}),
	"ListPromptsResult": &ListPromptsResult{Result: sampleResult(), Cache: sampleCache(), NextCursor: "c2",
		Prompts: []Prompt{*samplePrompt()}},
	"ListResourceTemplatesResult": &ListResourceTemplatesResult{Result: sampleResult(), Cache: sampleCache(),
		NextCursor: "c2", ResourceTemplates: []ResourceTemplate{*sampleResourceTemplate()}},
	"ListResourcesResult": &ListResourcesResult{Result: sampleResult(), Cache: sampleCache(), NextCursor: "c2",
		Resources: []Resource{*sampleResource()}},
	"ListRootsResult": &ListRootsResult{Result: sampleResult(), Roots: []Root{*sampleRoot()}},
	"ListTasksResult": &ListTasksResult{Result: sampleResult(), NextCursor: "c2", Tasks: []Task{sampleTask()}},
	"ListToolsResult": &ListToolsResult{Result: sampleResult(), Cache: sampleCache(), NextCursor: "c2",
		Tools: []Tool{*sampleTool()}},
	"LoggingLevel": ptr(LevelWarning),
	"LoggingMessageNotificationParams": &LoggingMessageNotificationParams{NotificationParams: sampleNotificationParams(),
		Level: LevelError, Logger: "db", Data: raw(`{"error":"gone"}`)},
	"Meta":                  ptr(sampleMeta()),
	"MissingCapabilityData": &MissingCapabilityData{RequiredCapabilities: *sampleClientCapabilities()},
	"ModelHint":             &sampleModelPreferences().Hints[0],
	"ModelPreferences":      sampleModelPreferences(),
	"NotificationParams":    ptr(sampleNotificationParams()),
	"PaginatedParams":       &PaginatedParams{RequestParams: sampleRequestParams(), Cursor: "c1"},
	"PaginatedResult":       &PaginatedResult{Result: sampleResult(), NextCursor: "c2"},
	"ParamHeader":           &ParamHeader{Path: []string{"location", "region"}, Name: "Region"},
	"PrimitiveSchema":       &sampleElicitSchema().Properties[0].Schema,
	"ProgressNotificationParams": &ProgressNotificationParams{NotificationParams: sampleNotificationParams(),
		ProgressToken: Int64ProgressToken(42), Progress: 1.5, Total: 3, Message: "half way"},
	"ProgressToken":     ptr(StringProgressToken("p-1")),
	"Prompt":            samplePrompt(),
	"PromptArgument":    &samplePrompt().Arguments[0],
	"PromptMessage":     samplePromptMessage(),
	"PromptsCapability": sampleServerCapabilities().Prompts,
	"ReadResourceParams": &ReadResourceParams{InputResponseParams: sampleInputResponseParams(),
		URI: "file:///a.txt"},
	"ReadResourceResult": &ReadResourceResult{Result: sampleResult(), Cache: sampleCache(),
		Contents: ResourceContentsList{sampleTextResourceContents(), sampleBlobResourceContents()}},
	"Reference":           &Reference{Type: ReferencePrompt, Name: "review", Title: "Review", URI: "file:///x"},
	"RelatedTaskMetadata": &RelatedTaskMetadata{TaskID: "t1"},
	"RequestParams":       ptr(sampleRequestParams()),
	"Resource":            sampleResource(),
	"ResourceContents":    &ResourceContentsList{sampleTextResourceContents(), sampleBlobResourceContents()},
	"ResourceContentsList": &ResourceContentsList{sampleBlobResourceContents(),
		sampleTextResourceContents()},
	"ResourceLink":         sampleResourceLink(),
	"ResourceNotFoundData": &ResourceNotFoundData{URI: "file:///missing"},
	"ResourceTemplate":     sampleResourceTemplate(),
	"ResourceUpdatedNotificationParams": &ResourceUpdatedNotificationParams{
		NotificationParams: sampleNotificationParams(), URI: "file:///a.txt"},
	"ResourcesCapability": sampleServerCapabilities().Resources,
	"Result":              ptr(sampleResult()),
	"ResultType":          ptr(ResultInputRequired),
	"Role":                ptr(RoleAssistant),
	"Root":                sampleRoot(),
	"RootsCapability":     sampleClientCapabilities().Roots,
	"SamplingCapability":  sampleClientCapabilities().Sampling,
	"SamplingContent": &SamplingContents{sampleText(), sampleImage(), sampleAudio(), sampleToolUse(),
		sampleToolResult()},
	"SamplingContents":      &SamplingContents{sampleToolResult()},
	"SamplingMessage":       sampleSamplingMessage(),
	"SamplingTaskRequests":  sampleClientCapabilities().Tasks.Requests.Sampling,
	"ServerCapabilities":    sampleServerCapabilities(),
	"ServerTaskRequests":    sampleServerCapabilities().Tasks.Requests,
	"ServerTasksCapability": sampleServerCapabilities().Tasks,
	"SetLevelParams":        &SetLevelParams{RequestParams: sampleRequestParams(), Level: LevelDebug},
	"SubscribeParams":       &SubscribeParams{RequestParams: sampleRequestParams(), URI: "file:///a.txt"},
	"SubscriptionFilter":    sampleSubscriptionFilter(),
	"SubscriptionsAcknowledgedNotificationParams": &SubscriptionsAcknowledgedNotificationParams{
		NotificationParams: sampleNotificationParams(), Notifications: *sampleSubscriptionFilter()},
	"SubscriptionsListenParams": &SubscriptionsListenParams{RequestParams: sampleRequestParams(),
		Notifications: *sampleSubscriptionFilter()},
	"Task":         ptr(sampleTask()),
	"TaskMetadata": &TaskMetadata{TTL: ptr(int64(60000))},
	"TaskStatus":   ptr(TaskInputRequired),
	"TaskStatusNotificationParams": &TaskStatusNotificationParams{NotificationParams: sampleNotificationParams(),
		Task: sampleTask()},
	"TaskSupport":          ptr(TaskSupportOptional),
	"TextContent":          sampleText(),
	"TextResourceContents": sampleTextResourceContents(),
	"Tool":                 sampleTool(),
	"ToolAnnotations":      sampleTool().Annotations,
	"ToolChoice":           &ToolChoice{Mode: ToolChoiceAuto},
	"ToolChoiceMode":       ptr(ToolChoiceNone),
	"ToolExecution":        sampleTool().Execution,
	"ToolResultContent":    sampleToolResult(),
	"ToolUseContent":       sampleToolUse(),
	"ToolsCapability":      sampleServerCapabilities().Tools,
	"ToolsTaskRequests":    sampleServerCapabilities().Tasks.Requests.Tools,
	"URLElicitationRequiredData": &URLElicitationRequiredData{
		Elicitations: []ElicitParams{*sampleElicitParams()}},
	"UnsubscribeParams":      &UnsubscribeParams{RequestParams: sampleRequestParams(), URI: "file:///a.txt"},
	"UnsupportedVersionData": &UnsupportedVersionData{Supported: []string{Version20251125}, Requested: "1999-01-01"},
	"UpdateTaskParams": &UpdateTaskParams{RequestParams: sampleRequestParams(), TaskID: "t1",
		InputResponses: sampleInputResponseParams().InputResponses},
}

// raw returns s as a raw JSON value.
func raw(s string) stdjson.RawMessage { return stdjson.RawMessage(s) }

// The sample builders return fresh values, so no two samples share memory.

func sampleMeta() Meta {
	return Meta{MetaProgressToken: raw(`"tok"`), "example.com/trace": raw(`{"id":[1,2]}`)}
}

func sampleAnnotations() *Annotations {
	return &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: ptr(0.5),
		LastModified: "2025-01-12T15:00:58Z"}
}

func sampleIcons() []Icon {
	return []Icon{{Src: "https://example.com/icon.png", MIMEType: "image/png", Sizes: []string{"48x48", "any"},
		Theme: IconThemeDark}}
}

func sampleResult() Result { return Result{Meta: sampleMeta(), ResultType: ResultComplete} }

func sampleRequestParams() RequestParams { return RequestParams{Meta: sampleMeta()} }

func sampleNotificationParams() NotificationParams { return NotificationParams{Meta: sampleMeta()} }

func sampleInputResponseParams() InputResponseParams {
	return InputResponseParams{RequestParams: sampleRequestParams(),
		InputResponses: InputResponses{"ask": raw(`{"action":"accept"}`), "roots": raw(`{"roots":[]}`)},
		RequestState:   "state-1"}
}

func sampleInputRequests() InputRequests {
	return InputRequests{
		"ask":   {Method: MethodElicitationCreate, Params: raw(`{"message":"Name?"}`)},
		"roots": {Method: MethodRootsList, Params: raw(`{}`)},
	}
}

func sampleCache() *CacheableResult { return &CacheableResult{TTLMs: 30000, CacheScope: CachePrivate} }

func sampleText() *TextContent {
	return &TextContent{Text: "hello", Annotations: sampleAnnotations(), Meta: sampleMeta()}
}

func sampleImage() *ImageContent {
	return &ImageContent{Data: []byte("\x89PNG"), MIMEType: "image/png", Annotations: sampleAnnotations(),
		Meta: sampleMeta()}
}

func sampleAudio() *AudioContent {
	return &AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav", Annotations: sampleAnnotations(),
		Meta: sampleMeta()}
}

func sampleResource() *Resource {
	return &Resource{URI: "file:///a.txt", Name: "a", Title: "A", Description: "The letter a",
		MIMEType: "text/plain", Annotations: sampleAnnotations(), Size: ptr(int64(1)), Icons: sampleIcons(),
		Meta: sampleMeta()}
}

func sampleResourceLink() *ResourceLink { return &ResourceLink{Resource: *sampleResource()} }

func sampleResourceTemplate() *ResourceTemplate {
	return &ResourceTemplate{URITemplate: "file:///{path}", Name: "files", Title: "Files",
		Description: "Any file", MIMEType: "text/plain", Annotations: sampleAnnotations(), Icons: sampleIcons(),
		Meta: sampleMeta()}
}

func sampleTextResourceContents() *TextResourceContents {
	return &TextResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "a", Meta: sampleMeta()}
}

func sampleBlobResourceContents() *BlobResourceContents {
	return &BlobResourceContents{URI: "file:///a.bin", MIMEType: "application/octet-stream",
		Blob: []byte{1, 2, 3}, Meta: sampleMeta()}
}

func sampleEmbedded() *EmbeddedResource {
	return &EmbeddedResource{Resource: sampleTextResourceContents(), Annotations: sampleAnnotations(),
		Meta: sampleMeta()}
}

func sampleToolUse() *ToolUseContent {
	return &ToolUseContent{ID: "u1", Name: "add", Input: raw(`{"a":1,"b":2}`), Meta: sampleMeta()}
}

func sampleToolResult() *ToolResultContent {
	return &ToolResultContent{ToolUseID: "u1", Content: Contents{sampleText()}, StructuredContent: raw(`{"sum":3}`),
		IsError: true, Meta: sampleMeta()}
}

func samplePromptMessage() *PromptMessage {
	return &PromptMessage{Role: RoleUser, Content: sampleText()}
}

func samplePrompt() *Prompt {
	return &Prompt{Name: "review", Title: "Review", Description: "Reviews code",
		Arguments: []PromptArgument{{Name: "code", Title: "Code", Description: "The code", Required: true}},
		Icons:     sampleIcons(), Meta: sampleMeta()}
}

func sampleRoot() *Root { return &Root{URI: "file:///home/u", Name: "home", Meta: sampleMeta()} }

func sampleTool() *Tool {
	return &Tool{Name: "add", Title: "Add", Description: "Adds",
		InputSchema:  raw(`{"type":"object","properties":{"a":{"type":"integer"}}}`),
		OutputSchema: raw(`{"type":"object"}`),
		Annotations: &ToolAnnotations{Title: "Adder", ReadOnlyHint: ptr(true), DestructiveHint: ptr(false),
			IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution: &ToolExecution{TaskSupport: TaskSupportOptional}, Icons: sampleIcons(), Meta: sampleMeta()}
}

func sampleImplementation() *Implementation {
	return &Implementation{Name: "weft", Title: "Weft", Version: "1.0.0", Description: "An MCP server",
		WebsiteURL: "https://example.com", Icons: sampleIcons()}
}

func sampleClientCapabilities() *ClientCapabilities {
	return &ClientCapabilities{
		Experimental: map[string]JSONObject{"x": {"on": raw(`true`)}},
		Roots:        &RootsCapability{ListChanged: true},
		Sampling:     &SamplingCapability{Context: JSONObject{}, Tools: JSONObject{"n": raw(`1`)}},
		Elicitation:  &ElicitationCapability{Form: JSONObject{}, URL: JSONObject{}},
		Tasks: &ClientTasksCapability{List: JSONObject{}, Cancel: JSONObject{},
			Requests: &ClientTaskRequests{
				Sampling:    &SamplingTaskRequests{CreateMessage: JSONObject{}},
				Elicitation: &ElicitationTaskRequests{Create: JSONObject{}},
			}},
		Extensions: map[string]JSONObject{ExtensionTasks: {}},
	}
}

func sampleServerCapabilities() *ServerCapabilities {
	return &ServerCapabilities{
		Experimental: map[string]JSONObject{"x": {}},
		Logging:      JSONObject{},
		Completions:  JSONObject{},
		Prompts:      &PromptsCapability{ListChanged: true},
		Resources:    &ResourcesCapability{Subscribe: true, ListChanged: true},
		Tools:        &ToolsCapability{ListChanged: true},
		Tasks: &ServerTasksCapability{List: JSONObject{}, Cancel: JSONObject{},
			Requests: &ServerTaskRequests{Tools: &ToolsTaskRequests{Call: JSONObject{}}}},
		Extensions: map[string]JSONObject{ExtensionTasks: {}},
	}
}

func sampleCompletion() *Completion {
	return &Completion{Values: []string{"python", "pytorch"}, Total: ptr(int64(10)), HasMore: ptr(true)}
}

func sampleSamplingMessage() *SamplingMessage {
	return &SamplingMessage{Role: RoleUser, Content: SamplingContents{sampleText(), sampleImage()},
		Meta: sampleMeta()}
}

func sampleModelPreferences() *ModelPreferences {
	return &ModelPreferences{Hints: []ModelHint{{Name: "claude"}}, CostPriority: ptr(0.1),
		SpeedPriority: ptr(0.2), IntelligencePriority: ptr(0.9)}
}

func sampleEnumItems() *EnumItems {
	return &EnumItems{Type: "string", Enum: []string{"r", "g"},
		AnyOf: []EnumOption{{Const: "r", Title: "Red"}}}
}

func sampleElicitSchema() *ElicitSchema {
	return &ElicitSchema{Schema: "https://json-schema.org/draft/2020-12/schema", Type: "object",
		Properties: ElicitProperties{
			{Name: "colour", Schema: PrimitiveSchema{Type: "array", Title: "Colour", Description: "Pick",
				MinLength: ptr(int64(1)), MaxLength: ptr(int64(9)), Format: "email",
				Minimum: ptr(0.5), Maximum: ptr(9.5), Enum: []string{"r"}, EnumNames: []string{"Red"},
				OneOf: []EnumOption{{Const: "r", Title: "Red"}}, MinItems: ptr(int64(1)),
				MaxItems: ptr(int64(2)), Items: sampleEnumItems(), Default: raw(`["r"]`)}},
			// A name that sorts first: member order must be kept.
			{Name: "age", Schema: PrimitiveSchema{Type: "integer"}},
		},
		Required: []string{"colour"}}
}

func sampleElicitParams() *ElicitParams {
	return &ElicitParams{RequestParams: sampleRequestParams(), Mode: ElicitModeURL, Message: "Sign in",
		RequestedSchema: sampleElicitSchema(), URL: "https://example.com/login", ElicitationID: "e1",
		Task: &TaskMetadata{TTL: ptr(int64(1))}}
}

func sampleTask() Task {
	return Task{TaskID: "t1", Status: TaskWorking, StatusMessage: "busy", CreatedAt: "2025-11-25T10:00:00Z",
		LastUpdatedAt: "2025-11-25T10:00:01Z", TTL: ptr(int64(60000)), PollInterval: ptr(int64(500))}
}

func sampleExtTask() ExtTask {
	return ExtTask{TaskID: "t1", Status: TaskCompleted, StatusMessage: "done", CreatedAt: "2026-07-28T10:00:00Z",
		LastUpdatedAt: "2026-07-28T10:00:01Z", TTLMs: ptr(int64(60000)), PollIntervalMs: ptr(int64(500))}
}

func sampleDetailedTask() *DetailedTask {
	return &DetailedTask{ExtTask: sampleExtTask(), InputRequests: sampleInputRequests(),
		TaskResult: raw(`{"content":[]}`),
		Error:      &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "boom", Data: raw(`{"why":"x"}`)}}
}

func sampleSubscriptionFilter() *SubscriptionFilter {
	return &SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true,
		ResourceSubscriptions: []string{"file:///a.txt"}, TaskIDs: []string{"t1"}}
}

package mcp

import "testing"

// Generic code (the server's dispatcher, the client's caller) reaches the base
// fields of any params or result through these methods.
type (
	paramsBase       interface{ ParamsBase() *RequestParams }
	resultBase       interface{ ResultBase() *Result }
	notificationBase interface{ NotificationBase() *NotificationParams }
)

func TestEveryParamsTypeExposesMeta(t *testing.T) {
	all := []any{
		&RequestParams{}, &PingParams{}, &DiscoverParams{}, &InitializeParams{}, &PaginatedParams{},
		&ListToolsParams{}, &CallToolParams{}, &ListPromptsParams{}, &GetPromptParams{},
		&ListResourcesParams{}, &ListResourceTemplatesParams{}, &ReadResourceParams{}, &SubscribeParams{},
		&UnsubscribeParams{}, &CompleteParams{}, &SetLevelParams{}, &CreateMessageParams{}, &ElicitParams{},
		&ListRootsParams{}, &SubscriptionsListenParams{}, &GetTaskParams{}, &CancelTaskParams{},
		&GetTaskPayloadParams{}, &ListTasksParams{}, &UpdateTaskParams{},
	}
	for _, p := range all {
		b, ok := p.(paramsBase)
		if !ok {
			t.Errorf("%T has no ParamsBase", p)
			continue
		}
		if err := b.ParamsBase().Meta.Set(MetaProtocolVersion, LatestVersion); err != nil {
			t.Fatal(err)
		}
		var back RequestParams
		if err := (Meta{"p": encode(t, p)}).Decode("p", &back); err != nil {
			t.Fatalf("%T: %v", p, err)
		}
		if v, err := back.Meta.ProtocolVersion(); err != nil || v != LatestVersion {
			t.Errorf("%T: _meta set through ParamsBase not encoded: %q, %v", p, v, err)
		}
	}
	for _, p := range []any{&CallToolParams{}, &GetPromptParams{}, &ReadResourceParams{}} {
		if _, ok := p.(interface{ InputResponseBase() *InputResponseParams }); !ok {
			t.Errorf("%T has no InputResponseBase", p)
		}
	}
}

func TestEveryResultTypeExposesResultType(t *testing.T) {
	all := []any{
		&Result{}, &EmptyResult{}, &InitializeResult{}, &DiscoverResult{}, &ListToolsResult{}, &CallToolResult{},
		&ListPromptsResult{}, &GetPromptResult{}, &ListResourcesResult{}, &ListResourceTemplatesResult{},
		&ReadResourceResult{}, &CompleteResult{}, &CreateMessageResult{}, &ElicitResult{}, &ListRootsResult{},
		&InputRequiredResult{}, &PaginatedResult{}, &SubscriptionsListenResult{}, &CreateTaskResult{}, &GetTaskResult{},
		&CancelTaskResult{}, &ListTasksResult{}, &ExtCreateTaskResult{}, &ExtGetTaskResult{}, &UpdateTaskResult{},
		&ExtCancelTaskResult{},
	}
	for _, r := range all {
		b, ok := r.(resultBase)
		if !ok {
			t.Errorf("%T has no ResultBase", r)
			continue
		}
		b.ResultBase().ResultType = ResultComplete
		rt, err := ResultTypeOf(encode(t, r))
		if err != nil || rt != ResultComplete {
			t.Errorf("%T: resultType set through ResultBase reads back as %q, %v", r, rt, err)
		}
	}
}

func TestEveryNotificationParamsTypeExposesMeta(t *testing.T) {
	all := []any{
		&NotificationParams{}, &InitializedNotificationParams{}, &CancelledNotificationParams{},
		&ProgressNotificationParams{ProgressToken: Int64ProgressToken(1)}, &LoggingMessageNotificationParams{Data: []byte(`"x"`)},
		&ResourceUpdatedNotificationParams{}, &ResourceListChangedNotificationParams{}, &ToolListChangedNotificationParams{},
		&PromptListChangedNotificationParams{}, &RootsListChangedNotificationParams{}, &ElicitationCompleteNotificationParams{},
		&SubscriptionsAcknowledgedNotificationParams{}, &TaskStatusNotificationParams{}, &ExtTaskStatusNotificationParams{},
	}
	for _, n := range all {
		b, ok := n.(notificationBase)
		if !ok {
			t.Errorf("%T has no NotificationBase", n)
			continue
		}
		if err := b.NotificationBase().Meta.Set(MetaSubscriptionID, "listen-1"); err != nil {
			t.Fatal(err)
		}
		var back NotificationParams
		if err := (Meta{"n": encode(t, n)}).Decode("n", &back); err != nil {
			t.Fatalf("%T: %v", n, err)
		}
		if id, err := back.Meta.SubscriptionID(); err != nil || id.Raw() != `"listen-1"` {
			t.Errorf("%T: _meta set through NotificationBase not encoded: %s, %v", n, id, err)
		}
	}
}

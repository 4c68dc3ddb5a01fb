package mcp

import "testing"

func TestMethodInVersion(t *testing.T) {
	tests := []struct {
		method string
		want   []bool // 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28
	}{
		{MethodInitialize, []bool{true, true, true, true, false}},
		{NotificationInitialized, []bool{true, true, true, true, false}},
		{MethodPing, []bool{true, true, true, true, false}},
		{MethodLoggingSetLevel, []bool{true, true, true, true, false}},
		{MethodResourcesSubscribe, []bool{true, true, true, true, false}},
		{MethodResourcesUnsubscribe, []bool{true, true, true, true, false}},
		{NotificationRootsListChanged, []bool{true, true, true, true, false}},
		{MethodSamplingCreateMessage, []bool{true, true, true, true, false}},
		{MethodRootsList, []bool{true, true, true, true, false}},
		{MethodElicitationCreate, []bool{false, false, true, true, false}},
		{NotificationElicitationComplete, []bool{false, false, false, true, false}},
		{MethodTasksGet, []bool{false, false, false, true, false}},
		{MethodTasksResult, []bool{false, false, false, true, false}},
		{MethodTasksList, []bool{false, false, false, true, false}},
		{MethodTasksCancel, []bool{false, false, false, true, false}},
		{NotificationTasksStatus, []bool{false, false, false, true, false}},
		{MethodTasksUpdate, []bool{false, false, false, false, false}},
		{NotificationTasks, []bool{false, false, false, false, false}},
		{MethodServerDiscover, []bool{false, false, false, false, true}},
		{MethodSubscriptionsListen, []bool{false, false, false, false, true}},
		{NotificationSubscriptionsAcknowledged, []bool{false, false, false, false, true}},
		{MethodToolsCall, []bool{true, true, true, true, true}},
		{MethodCompletionComplete, []bool{true, true, true, true, true}},
		{NotificationCancelled, []bool{true, true, true, true, true}},
		{NotificationMessage, []bool{true, true, true, true, true}},
		{"tools/unknown", []bool{false, false, false, false, false}},
	}
	versions := []string{Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}
	for _, tt := range tests {
		for i, v := range versions {
			if got := MethodInVersion(tt.method, v); got != tt.want[i] {
				t.Errorf("MethodInVersion(%q, %q) = %v, want %v", tt.method, v, got, tt.want[i])
			}
		}
	}
	if !MethodInVersion(MethodServerDiscover, "2027-01-01") || MethodInVersion(MethodInitialize, "2027-01-01") {
		t.Error("a future modern version should keep modern methods and lack legacy ones")
	}
}

func TestTasksExtensionMethods(t *testing.T) {
	for _, m := range []string{MethodTasksGet, MethodTasksUpdate, MethodTasksCancel, NotificationTasks} {
		if !IsTasksExtensionMethod(m) {
			t.Errorf("IsTasksExtensionMethod(%q) = false", m)
		}
	}
	for _, m := range []string{MethodTasksResult, MethodTasksList, NotificationTasksStatus, MethodToolsCall} {
		if IsTasksExtensionMethod(m) {
			t.Errorf("IsTasksExtensionMethod(%q) = true", m)
		}
	}
}

func TestInputRequiredOnlyOnToolsPromptsAndResourceReads(t *testing.T) {
	for _, m := range []string{MethodToolsCall, MethodPromptsGet, MethodResourcesRead} {
		if !AllowsInputRequired(m) {
			t.Errorf("AllowsInputRequired(%q) = false", m)
		}
	}
	for _, m := range []string{MethodToolsList, MethodCompletionComplete, MethodTasksGet, MethodServerDiscover} {
		if AllowsInputRequired(m) {
			t.Errorf("AllowsInputRequired(%q) = true", m)
		}
	}
}

func TestNameParamForMcpNameHeader(t *testing.T) {
	tests := map[string]string{
		MethodToolsCall:      "name",
		MethodPromptsGet:     "name",
		MethodResourcesRead:  "uri",
		MethodTasksGet:       "taskId",
		MethodTasksUpdate:    "taskId",
		MethodTasksCancel:    "taskId",
		MethodToolsList:      "",
		MethodServerDiscover: "",
	}
	for m, want := range tests {
		if got := NameParam(m); got != want {
			t.Errorf("NameParam(%q) = %q, want %q", m, got, want)
		}
	}
}

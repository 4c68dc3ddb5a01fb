// Command server is weft's fixture server for the official MCP conformance
// suite (@modelcontextprotocol/conformance, pinned in conformance/js): the
// "everything server" surface the suite's server scenarios call by name,
// built only on weft's server and transport/streamable packages.
//
//	server -http 127.0.0.1:0 [-ready-file FILE]   Streamable HTTP on /mcp, both eras
//	server -stdio                                 newline-delimited JSON-RPC on stdin/stdout
//
// With -http the server prints "http://ADDR/mcp" on stdout once it listens
// (and writes it to -ready-file), so conformance/run.sh can use port 0.
//
// # What the suite checks, and what answers it
//
// The list below was built from the scenario sources of the suite
// (src/scenarios/server/*.ts) and its reference fixture
// (examples/servers/typescript/everything-server.ts). Names and strings in
// quotes are compared by the checks. Everything about the wire itself
// (sessions, headers, status codes, resultType, caching hints, error codes)
// is the library's job; this program only registers the fixtures and never
// works around the library.
//
// Legacy era (2025-06-18, 2025-11-25; initialize handshake, Mcp-Session-Id):
//
//   - server-initialize: initialize succeeds; any session id is visible
//     ASCII (0x21-0x7E).
//   - server-session-lifecycle: DELETE with the session id gets 2xx; the
//     same id afterwards gets HTTP 404.
//   - ping, logging-set-level (logging/setLevel "info" returns {}),
//     resources-subscribe / -unsubscribe ("test://watched-resource", {}).
//   - completion-complete: completion/complete on ref/prompt
//     "test_prompt_with_arguments", argument arg1, returns completion.values
//     (an array; this fixture suggests values that start with the typed
//     prefix).
//   - tools-call-with-logging: after logging/setLevel "debug", tool
//     "test_tool_with_logging" sends at least 3 notifications/message during
//     the call.
//   - tools-call-sampling: "test_sampling" {prompt} sends
//     sampling/createMessage (one user text message, maxTokens 100) and
//     returns "LLM response: <reply>".
//   - tools-call-elicitation: "test_elicitation" {message} sends
//     elicitation/create and returns "User response: action=…, content=…".
//   - elicitation-sep1034-defaults: "test_elicitation_sep1034_defaults"
//     asks with defaults of every primitive type: name "John Doe" (string),
//     age 30 (integer), score 95.5 (number), status "active" (string enum
//     active|inactive|pending), verified true (boolean); required [].
//   - elicitation-sep1330-enums: "test_elicitation_sep1330_enums" asks with
//     untitledSingle (enum), titledSingle (oneOf const/title), legacyEnum
//     (enum + enumNames), untitledMulti (array of enum, minItems 1, maxItems
//     3), titledMulti (array, items.anyOf const/title); required [].
//   - server-sse-polling: "test_reconnection" closes its POST SSE stream
//     after the priming event (which carries an id and a retry field), then
//     finishes; the client resumes with GET + Last-Event-ID and receives the
//     result there.
//   - server-sse-multiple-streams: concurrent POSTs all complete.
//   - dns-rebinding-protection: Host/Origin evil.example.com gets 4xx, the
//     real localhost host gets 2xx.
//
// Both eras:
//
//   - tools-list: every tool has a name matching [A-Za-z0-9_./-]{1,64}, a
//     non-empty description and an inputSchema; at 2026-07-28 the list is
//     stable across calls.
//   - tools-call-simple-text "test_simple_text", tools-call-image
//     "test_image_content" (image/png), tools-call-audio
//     "test_audio_content" (exactly audio/wav), tools-call-embedded-resource
//     "test_embedded_resource" (uri, mimeType, text), tools-call-mixed-content
//     "test_multiple_content_types" (text, image, resource).
//   - tools-call-error: "test_error_handling" returns a result with
//     isError true and a text item, not a JSON-RPC error.
//   - tools-call-with-progress: "test_tool_with_progress", called with
//     _meta.progressToken, sends at least 3 notifications/progress echoing
//     that exact token with non-decreasing progress (0, 50, 100 of 100),
//     before the result and on the same stream.
//   - json-schema-2020-12: "json_schema_2020_12_tool" lists its inputSchema
//     verbatim ($schema, $defs with $anchor, allOf/anyOf, if/then/else,
//     additionalProperties false).
//   - resources-list (uri and name on each), resources-read-text
//     "test://static-text", resources-read-binary "test://static-binary"
//     (blob), resources-templates-read "test://template/123/data" (text
//     contains "123").
//   - prompts-list (name and description on each), prompts-get-simple
//     "test_simple_prompt", prompts-get-with-args "test_prompt_with_arguments"
//     (arg1, arg2 echoed), prompts-get-embedded-resource
//     "test_prompt_with_embedded_resource" (resourceUri), prompts-get-with-image
//     "test_prompt_with_image".
//
// Modern era (2026-07-28; stateless, per-request _meta, server/discover):
//
//   - server-stateless: discover (supportedVersions, capabilities matching
//     what is served, _meta serverInfo); -32602/400 for missing _meta
//     fields; -32020/400 for a missing or mismatched MCP-Protocol-Version
//     header; -32022/400 with data.supported for unknown versions; 404 +
//     -32601 for removed and unknown methods, keeping the request id;
//     subscriptions/listen acknowledged first, honouring its filter. Fixture
//     tools: "test_missing_capability" (without the sampling capability in
//     _meta: HTTP 400, -32021, data.requiredCapabilities {"sampling":{}}),
//     "test_streaming_elicitation" (notifications allowed on its stream,
//     never a server-to-client request), "test_logging_tool" (logs only
//     when _meta carries io.modelcontextprotocol/logLevel),
//     "test_trigger_tool_change" and "test_trigger_prompt_change" (announce
//     list changes to open subscriptions/listen streams that asked).
//   - caching: tools/list, prompts/list, resources/list,
//     resources/templates/list and resources/read carry ttlMs (integer >= 0)
//     and cacheScope (public|private).
//   - sep-2164-resource-not-found: an unknown URI gets -32602 with
//     data.uri, never empty contents.
//   - http-header-validation: Mcp-Method / Mcp-Name mismatches get 400 +
//     -32020; header names case-insensitive, values case-sensitive,
//     surrounding whitespace trimmed.
//   - http-custom-header-server-validation: needs a tool with a string
//     x-mcp-header parameter ("test_custom_header", parameter "region",
//     header Mcp-Param-Region); mismatches, bad =?base64?…?= values and
//     omitted headers get 400 + -32020.
//   - input-required-result-*: multi-round-trip tools. Keys and texts the
//     checks read: "test_input_required_result_elicitation" (key user_name,
//     "Hello, <name>!"; a wrong key re-asks; a non-object or null response
//     is refused or re-asked, never completed), "…_sampling" (key
//     sample_request), "…_list_roots" (key roots_request),
//     "…_request_state" (key confirm plus requestState; text contains
//     "state-ok"), "…_multiple_inputs" (user_name, greeting, client_roots
//     plus requestState), "…_multi_round" (step1 then step2, requestState
//     evolving), "…_tampered_state" (integrity-protected requestState;
//     tampering gets -32602), "…_capabilities" (asks only for what the
//     request's clientCapabilities declare), and the prompt
//     "test_input_required_result_prompt" (key user_context). tools/list and
//     prompts/list never return an InputRequiredResult.
//
// Tasks extension (io.modelcontextprotocol/tasks, SEP-2663; the tasks-*
// scenarios, run at 2026-07-28 on requests whose _meta declares the
// extension, or not, per check). The server has an in-memory task runtime;
// which calls become tasks is the library's decision by each tool's
// server.TaskConfig:
//
//   - tasks-lifecycle: "greet" {name} answers "Hello, {name}!" inline;
//     "slow_compute" {seconds, label} becomes a task (flat CreateTaskResult,
//     resultType "task") once it has run 250 ms, so {seconds: 0} answers
//     inline and {seconds: 2} is a task that tasks/get shows working, then
//     completed with result.content; "failing_job" (required) ends
//     completed with result.isError after about a second; "protocol_error_job"
//     ends failed with error {code, message} and no result; tasks/cancel
//     answers the empty ack, also for a finished task, and a cancelled
//     slow_compute settles to cancelled.
//   - tasks-capability-negotiation: server/discover declares
//     extensions["io.modelcontextprotocol/tasks"] and no capabilities.tasks;
//     without the extension in the request's _meta, tasks/get|update|cancel
//     get -32021 and slow_compute answers inline; with it in one request's
//     _meta only, that call gets a task.
//   - tasks-wire-fields: ttlMs and pollIntervalMs are positive integers, no
//     ttl or pollInterval; a finished task stays readable for its ttlMs; the
//     inlined result has no related-task _meta.
//   - tasks-request-state-removal: no requestState on CreateTaskResult or
//     tasks/get.
//   - tasks-mrtr-input: "confirm_delete" {filename} parks input_required with
//     one elicitation/create in inputRequests and completes after
//     tasks/update; "multi_input" parks with two (keys "name" and
//     "confirm"), stays input_required after a partial tasks/update showing
//     only the unanswered key, and completes after the second.
//   - tasks-request-headers: Mcp-Method and Mcp-Name (the taskId) are
//     checked by the transport (400 + -32020 on a mismatch).
//   - tasks-dispatch-and-envelope: tasks/result and tasks/list are -32601;
//     failing_job becomes a task without any hint; a legacy task param on
//     greet is ignored; tasks/update with an unknown key is acknowledged;
//     tasks/get right after creation resolves; an unknown taskId is -32602.
//   - tasks-required-task-error: failing_job without the extension gets
//     -32021 with data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"].
//   - tasks-mrtr-composition: "test_tool_with_task" (required) first asks
//     for user_name as an InputRequiredResult with no taskId; the retry with
//     the answer becomes a task (no requestState, no inputRequests) whose
//     result greets "Alice".
//   - tasks-status-notifications: an upstream placeholder that only reports
//     skipped.
package main

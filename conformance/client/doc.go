// Command client is weft's conformance client: the program the official MCP
// conformance suite (@modelcontextprotocol/conformance, pinned in
// conformance/js) starts once per client scenario, against a mock server it
// runs, built only on weft's client, transport/streamable and
// auth/oauthclient packages.
//
//	MCP_CONFORMANCE_SCENARIO=tools_call client [FLAG...] http://localhost:PORT/mcp
//
// The suite appends the mock server's URL as the last argument and sets:
//
//   - MCP_CONFORMANCE_SCENARIO: the scenario to play;
//   - MCP_CONFORMANCE_PROTOCOL_VERSION: the wire version. Up to 2025-11-25
//     the client runs the legacy lifecycle (initialize handshake, session);
//     from 2026-07-28 the modern one (per-request _meta, no session);
//   - MCP_CONFORMANCE_CONTEXT: JSON with scenario data, when there is some.
//
// When the scenario ran to completion the client prints
// outcome.Completed as its last stderr line and exits 0; otherwise it prints
// outcome.FailedPrefix and the reason, and exits 1. The suite ignores the
// exit status in suite mode, so conformance/report reads that line.
//
// # What each scenario asks of the client
//
// Built from the suite's client scenarios (src/scenarios/client/*.ts). What
// the mock checks on the wire (headers, _meta, ids, schema preservation,
// reconnection timing) is the library's behaviour; this program only plays
// the scenario's script and never does the library's work itself.
//
//   - initialize: connect (the handshake checks protocolVersion and
//     clientInfo name/version), list tools.
//   - tools_call: list tools, call "add_numbers" with numeric a and b.
//   - elicitation-sep1034-client-defaults: declare elicitation, call
//     "test_client_elicitation_defaults"; the handler accepts with empty
//     content and the client library fills in the schema defaults (name
//     "John Doe", age 30, score 95.5, status "active", verified true).
//   - sse-retry: call "test_reconnection"; the mock closes the SSE stream
//     after sending an event id and retry: 500, and the transport must
//     resume with GET + Last-Event-ID after 450-700 ms.
//   - request-metadata (2026-07-28): server/discover and tools/list, each
//     with _meta protocolVersion, clientInfo and clientCapabilities and a
//     matching MCP-Protocol-Version header; on -32022 the client retries with
//     a version from data.supported.
//   - http-standard-headers (2026-07-28): list and call tools, list and read
//     resources, list and get prompts; every POST carries Mcp-Method, and
//     Mcp-Name for tools/call, resources/read and prompts/get.
//   - http-custom-headers (2026-07-28): list tools, then make the calls
//     listed in the context's toolCalls; the library mirrors x-mcp-header
//     parameters into Mcp-Param-* headers (=?base64?…?= when not plain
//     ASCII, omitted when null).
//   - http-invalid-tool-headers (2026-07-28): list tools (the library drops
//     tools with invalid x-mcp-header annotations), call each tool left;
//     "valid_tool" must be called, the invalid ones never.
//   - json-schema-ref-no-deref (2026-07-28): list tools only; nothing may
//     fetch the network $ref in an inputSchema.
//   - json-schema-2020-12-preservation: list tools, then call
//     "json_schema_echo" with {schema: <inputSchema of
//     json_schema_2020_12_tool, exactly as received>}.
//   - sep-2322-client-request-state (2026-07-28): multi round-trip calls of
//     "test_mrtr_echo_state" (requestState echoed unchanged, a fresh JSON-RPC
//     id per retry), "test_mrtr_unrelated" concurrently with it (no MRTR
//     fields carried over), "test_mrtr_no_state" (no requestState on the
//     retry) and "test_mrtr_no_result_type" (a result without resultType is
//     complete: no retry). The elicitation handler accepts with
//     {confirmed: true}.
//   - sep-2640-client-no-prefetch (Skills extension): list the skills and
//     stop; listing must fetch no skill file.
//   - sep-2640-client-verify-digest, -verify-size, -verify-frontmatter:
//     list the skills and load the first one (client.ReadSkillFile on its
//     SKILL.md, which checks size, digest and frontmatter against the
//     entry); only when it verifies, read its other files. The mock serves
//     a tampered SKILL.md, so the load must fail with
//     client.ErrSkillVerification and no other file be read: that refusal
//     completes the scenario.
//   - auth/*: connect, list tools, call "test-tool", with the transport's
//     HTTP client authorizing through auth/oauthclient: the authorization
//     code grant with a headless authorizer (redirect URI
//     http://localhost:3000/callback, which the mock redirects to at once)
//     and https://conformance-test.local/client-metadata.json as the client
//     ID metadata document URL. From the context, auth/pre-registration
//     takes client_id, client_secret and issuer as pre-registered
//     credentials; auth/client-credentials-basic and -jwt use the client
//     credentials grant with client_secret_basic or private_key_jwt
//     (private_key_pem, signing_algorithm); auth/wif-jwt-bearer exchanges
//     valid_jwt with the JWT bearer grant; auth/enterprise-managed-authorization
//     (SEP-990) exchanges idp_id_token at idp_token_endpoint as
//     idp_client_id for an ID-JAG, then presents it with the JWT bearer
//     grant as client_id/client_secret. In auth/dpop and auth/dpop-nonce
//     the library asks for a DPoP-bound token because the authorization
//     server lists ES256 in dpop_signing_alg_values_supported, and answers
//     both servers' use_dpop_nonce (nothing scenario-specific is
//     configured). In auth/resource-mismatch,
//     auth/metadata-issuer-mismatch, auth/iss-supported-missing,
//     auth/iss-wrong-issuer, auth/iss-unexpected, auth/iss-normalized and
//     auth/scope-retry-limit the library must refuse to go on: there the
//     session failing at the HTTP layer completes the scenario, and going
//     through fails it.
package main

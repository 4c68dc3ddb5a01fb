#!/usr/bin/env node
// Drives a weft MCP server with the official TypeScript SDK client and
// prints what it observed as one JSON object on stdout. The Go test in
// interop/ judges the observations; this script only fails (exit 1, reason
// on stderr) when a step throws where it must not.
//
//   node sdk-client.cjs --stdio COMMAND [ARG...]   spawn the server, speak stdio
//   node sdk-client.cjs --http URL                  Streamable HTTP
//   node sdk-client.cjs --ws URL                    WebSocket (WebSocketClientTransport)
//
// The server must serve the interop fixture set (interop/fixture_test.go):
// tools echo, add, countdown, wait_for_cancel, cancellations, ask_name,
// slow_echo (a task); resource
// interop://static/hello and template interop://items/{id}; prompt greeting.
// Run with NODE_PATH pointing at the node_modules that install.sh prints.
'use strict';

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { WebSocketClientTransport } = require('@modelcontextprotocol/sdk/client/websocket.js');
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const REQUEST_TIMEOUT_MS = 10000;
const CANCEL_OBSERVE_TIMEOUT_MS = 5000;

function usage() {
  process.stderr.write('usage: sdk-client.cjs --stdio COMMAND [ARG...] | --http URL | --ws URL\n');
  process.exit(2);
}

function transportFromArgs(argv) {
  const [mode, ...rest] = argv;
  if (mode === '--stdio' && rest.length > 0) {
    // env: the server under test may read its mode from the environment.
    return new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: 'inherit' });
  }
  if (mode === '--http' && rest.length === 1) {
    return new StreamableHTTPClientTransport(new URL(rest[0]));
  }
  if (mode === '--ws' && rest.length === 1) {
    return new WebSocketClientTransport(new URL(rest[0]));
  }
  return usage();
}

// textOf returns the concatenated text items of a tool result or prompt.
function textOf(content) {
  return (content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

// errorInfo keeps what the Go test needs to know about a rejected call.
function errorInfo(err) {
  return { name: err && err.name, code: err && err.code, message: String(err && err.message) };
}

async function main() {
  const transport = transportFromArgs(process.argv.slice(2));
  const client = new Client({ name: 'weft-interop-ts-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const elicited = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params.message);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  const seen = {};

  await client.connect(transport);
  seen.serverInfo = client.getServerVersion();
  seen.capabilities = client.getServerCapabilities();
  seen.protocolVersion = transport.protocolVersion;

  const tools = await client.listTools({}, opts);
  seen.tools = tools.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));

  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi from TypeScript' } }, undefined, opts);
  seen.echo = { text: textOf(echo.content), isError: echo.isError === true };

  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, undefined, opts);
  seen.add = { text: textOf(add.content), structuredContent: add.structuredContent, isError: add.isError === true };

  const progress = [];
  const countdown = await client.callTool({ name: 'countdown', arguments: { steps: 3 } }, undefined, {
    ...opts,
    onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message })
  });
  seen.countdown = { text: textOf(countdown.content), progress };

  // Unknown tools: the spec allows a JSON-RPC error or an isError result.
  try {
    const r = await client.callTool({ name: 'no_such_tool', arguments: {} }, undefined, opts);
    seen.unknownTool = { result: { isError: r.isError === true, text: textOf(r.content) } };
  } catch (err) {
    seen.unknownTool = { error: errorInfo(err) };
  }

  // Arguments that fail the tool's input schema: since 2025-11-25 a tool
  // error the model sees (SEP-1303), not a JSON-RPC error.
  try {
    const r = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } }, undefined, opts);
    seen.badArguments = { result: { isError: r.isError === true, text: textOf(r.content) } };
  } catch (err) {
    seen.badArguments = { error: errorInfo(err) };
  }

  const resources = await client.listResources({}, opts);
  seen.resources = resources.resources.map((r) => ({ uri: r.uri, name: r.name, mimeType: r.mimeType }));
  const templates = await client.listResourceTemplates({}, opts);
  seen.resourceTemplates = templates.resourceTemplates.map((t) => ({ uriTemplate: t.uriTemplate, name: t.name }));
  const hello = await client.readResource({ uri: 'interop://static/hello' }, opts);
  seen.readStatic = hello.contents;
  const item = await client.readResource({ uri: 'interop://items/42' }, opts);
  seen.readTemplate = item.contents;

  const prompts = await client.listPrompts({}, opts);
  seen.prompts = prompts.prompts.map((p) => ({ name: p.name, arguments: p.arguments }));
  const greeting = await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } }, opts);
  seen.greeting = greeting.messages.map((m) => ({ role: m.role, text: m.content && m.content.text }));

  // Cancellation: abort the call once the tool reports it has started; the
  // SDK then sends notifications/cancelled. The server counts the handlers
  // whose context ended; poll it until the count moves (bounded).
  const before = Number(textOf((await client.callTool({ name: 'cancellations', arguments: {} }, undefined, opts)).content));
  const controller = new AbortController();
  const started = Date.now();
  try {
    await client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, {
      ...opts,
      signal: controller.signal,
      onprogress: () => controller.abort('interop test cancels the call')
    });
    seen.cancel = { rejected: false };
  } catch (err) {
    seen.cancel = { rejected: true, error: errorInfo(err), rejectedAfterMs: Date.now() - started };
  }
  let after = before;
  const deadline = Date.now() + CANCEL_OBSERVE_TIMEOUT_MS;
  while (after <= before && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = Number(textOf((await client.callTool({ name: 'cancellations', arguments: {} }, undefined, opts)).content));
  }
  seen.cancel.serverObservedCancellations = after - before;

  // The session must still work after a cancellation.
  const again = await client.callTool({ name: 'echo', arguments: { text: 'still here' } }, undefined, opts);
  seen.afterCancel = textOf(again.content);

  // An elicitation: the tool asks the client for a name mid-call.
  const asked = await client.callTool({ name: 'ask_name', arguments: {} }, undefined, opts);
  seen.elicitation = { text: textOf(asked.content), asked: elicited.slice() };

  // A task (2025-11-25): created, followed to its result.
  const taskMessages = [];
  let taskText = '';
  const stream = client.experimental.tasks.callToolStream({ name: 'slow_echo', arguments: { text: 'as a task' } }, undefined, { ...opts, task: { ttl: 60000 } });
  for await (const message of stream) {
    taskMessages.push(message.type);
    if (message.type === 'result') taskText = textOf(message.result.content);
    if (message.type === 'error') taskText = 'error: ' + String(message.error && message.error.message);
  }
  seen.task = { messages: taskMessages, text: taskText };

  await client.close();
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`sdk-client.cjs: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});

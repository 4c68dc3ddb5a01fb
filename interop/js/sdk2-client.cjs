#!/usr/bin/env node
// Drives a weft MCP server with the TypeScript SDK v2 client
// (@modelcontextprotocol/client, which speaks 2026-07-28) and prints what it
// observed as one JSON object on stdout, in the shape sdk-client.cjs prints
// plus what only the modern era has. The Go test in interop/ judges the
// observations; this script fails (exit 1, reason on stderr) only when a
// step throws where it must not.
//
//   node sdk2-client.cjs ERA --stdio COMMAND [ARG...]   spawn the server, speak stdio
//   node sdk2-client.cjs ERA --http URL                  Streamable HTTP
//
// ERA is "auto" (probe with server/discover, as the SDK does when asked to
// negotiate) or "modern" (pinned to 2026-07-28). The server must serve the
// interop fixture set (interop/fixture_test.go). Run with NODE_PATH
// pointing at the node_modules that install.sh prints.
'use strict';

const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');

const REQUEST_TIMEOUT_MS = 10000;
const CANCEL_OBSERVE_TIMEOUT_MS = 5000;

function usage() {
  process.stderr.write('usage: sdk2-client.cjs auto|modern --stdio COMMAND [ARG...] | --http URL\n');
  process.exit(2);
}

function negotiation(era) {
  switch (era) {
    case 'auto':
      return { mode: 'auto' };
    case 'modern':
      return { mode: { pin: '2026-07-28' } };
  }
  return usage();
}

function transportFromArgs(argv) {
  const [mode, ...rest] = argv;
  if (mode === '--stdio' && rest.length > 0) {
    return new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: 'inherit' });
  }
  if (mode === '--http' && rest.length === 1) {
    return new StreamableHTTPClientTransport(new URL(rest[0]));
  }
  return usage();
}

function textOf(content) {
  return (content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

function errorInfo(err) {
  return { name: err && err.name, code: err && err.code, message: String(err && err.message) };
}

async function main() {
  const [era, ...rest] = process.argv.slice(2);
  const transport = transportFromArgs(rest);
  const client = new Client(
    { name: 'weft-interop-ts2-client', version: '2.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: negotiation(era) }
  );
  // Multi-round-trip input: the SDK answers an input_required result's
  // elicitation with this handler and retries the call itself.
  const elicitations = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    elicitations.push(request.params.message);
    return { action: 'accept', content: { name: 'Grace' } };
  });
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  const seen = {};

  await client.connect(transport);
  seen.serverInfo = client.getServerVersion();
  seen.capabilities = client.getServerCapabilities();
  seen.protocolVersion = client.getNegotiatedProtocolVersion();
  seen.era = client.getProtocolEra();

  const tools = await client.listTools({}, opts);
  seen.tools = tools.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));

  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi from TypeScript' } }, opts);
  seen.echo = { text: textOf(echo.content), isError: echo.isError === true };

  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, opts);
  seen.add = { text: textOf(add.content), structuredContent: add.structuredContent, isError: add.isError === true };

  const progress = [];
  const countdown = await client.callTool({ name: 'countdown', arguments: { steps: 3 } }, {
    ...opts,
    onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message })
  });
  seen.countdown = { text: textOf(countdown.content), progress };

  try {
    const r = await client.callTool({ name: 'no_such_tool', arguments: {} }, opts);
    seen.unknownTool = { result: { isError: r.isError === true, text: textOf(r.content) } };
  } catch (err) {
    seen.unknownTool = { error: errorInfo(err) };
  }

  // Arguments that fail the tool's input schema: since 2025-11-25 a tool
  // error the model sees (SEP-1303), not a JSON-RPC error.
  try {
    const r = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } }, opts);
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

  const asked = await client.callTool({ name: 'ask_name', arguments: {} }, opts);
  seen.askName = { text: textOf(asked.content), elicitations };

  // subscriptions/listen: a tool added while listening is announced.
  let announced;
  const listChanged = new Promise((resolve) => { announced = resolve; });
  client.setNotificationHandler('notifications/tools/list_changed', () => announced());
  const sub = await client.listen({ toolsListChanged: true }, opts);
  const addedName = textOf((await client.callTool({ name: 'add_tool', arguments: {} }, opts)).content);
  let timer;
  const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), REQUEST_TIMEOUT_MS); });
  const heard = await Promise.race([listChanged.then(() => 'announced'), timedOut]);
  clearTimeout(timer);
  const afterAdd = await client.listTools({}, { ...opts, cacheMode: 'no-cache' });
  await sub.close();
  seen.listen = { honored: sub.honoredFilter, heard, added: addedName,
    listed: afterAdd.tools.some((t) => t.name === addedName), closed: await sub.closed };

  const before = Number(textOf((await client.callTool({ name: 'cancellations', arguments: {} }, opts)).content));
  const controller = new AbortController();
  try {
    await client.callTool({ name: 'wait_for_cancel', arguments: {} }, {
      ...opts,
      signal: controller.signal,
      onprogress: () => controller.abort('interop test cancels the call')
    });
    seen.cancel = { rejected: false };
  } catch (err) {
    seen.cancel = { rejected: true, error: errorInfo(err) };
  }
  let after = before;
  const deadline = Date.now() + CANCEL_OBSERVE_TIMEOUT_MS;
  while (after <= before && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = Number(textOf((await client.callTool({ name: 'cancellations', arguments: {} }, opts)).content));
  }
  seen.cancel.serverObservedCancellations = after - before;

  const again = await client.callTool({ name: 'echo', arguments: { text: 'still here' } }, opts);
  seen.afterCancel = textOf(again.content);

  await client.close();
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`sdk2-client.cjs: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});

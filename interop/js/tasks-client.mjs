#!/usr/bin/env node
// Drives weft's task tools with the official Tasks requester
// (@modelcontextprotocol/ext-tasks) on top of the TypeScript SDK v2 client,
// and prints what it observed as one JSON object on stdout for the Go test
// in interop/ to judge. It fails (exit 1, reason on stderr) only when a
// step throws where it must not.
//
//   node tasks-client.mjs legacy --http URL          2025-11-25 tasks (tasks/get,
//   node tasks-client.mjs legacy --stdio COMMAND...  tasks/result, tasks/list)
//   node tasks-client.mjs modern --http URL          the io.modelcontextprotocol/tasks
//                                                    extension on 2026-07-28 (tasks/get,
//                                                    tasks/update, tasks/cancel)
//
// The server serves the interop fixture's task tools (slow_echo,
// task_ask_name, task_wait) at the Streamable HTTP endpoint URL, or on
// stdio when spawned as COMMAND. The packages are ES modules, which
// NODE_PATH does not reach: they are imported from the node_modules
// directory NODE_PATH names (the one install.sh prints).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const MODERN = '2026-07-28';
const REQUEST_TIMEOUT_MS = 10000;

const modules = process.env.NODE_PATH;
const load = (file) => import(pathToFileURL(path.join(modules, file)).href);
const { Client, StreamableHTTPClientTransport } = await load('@modelcontextprotocol/client/dist/index.mjs');
const { StdioClientTransport } = await load('@modelcontextprotocol/client/dist/stdio.mjs');
const { createTaskSessionFromClient, resultFromTaskOutcome } = await load('@modelcontextprotocol/ext-tasks/dist/client/index.js');

const clientInfo = { name: 'weft-interop-tasks-client', version: '1.0.0' };
const clientCapabilities = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };

function textOf(result) {
  return ((result && result.content) || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

// Methods whose params member the modern HTTP binding mirrors into Mcp-Name.
const nameMember = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' };

// rawDispatcher returns the requester's raw dispatch: it gives the request
// it is handed ({method, params}) a JSON-RPC envelope, sends it as its own
// POST (the era is stateless) and returns its response, read from a JSON or
// an SSE answer.
function rawDispatcher(url) {
  let lastId = 0;
  return async (call, options) => {
    const request = { jsonrpc: '2.0', id: 'raw-' + ++lastId, ...call };
    // The requester names the headers the binding mirrors (Mcp-Method,
    // Mcp-Name) in its dispatch context; what it leaves out is derived here.
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': request.method
    });
    const member = nameMember[request.method];
    if (member && request.params && typeof request.params[member] === 'string') {
      headers.set('mcp-name', request.params[member]);
    }
    for (const [name, value] of Object.entries((options && options.context && options.context.headers) || {})) {
      headers.set(name, value);
    }
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(request), signal: options && options.signal });
    const body = await res.text();
    let messages;
    if ((res.headers.get('content-type') || '').startsWith('text/event-stream')) {
      messages = body.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean).map((d) => JSON.parse(d));
    } else {
      messages = [JSON.parse(body)];
    }
    const answer = messages.find((m) => m.id === request.id && (m.result !== undefined || m.error !== undefined));
    if (!answer) {
      throw new Error(`no response to ${request.method} in HTTP ${res.status}: ${body}`);
    }
    return answer.error ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result };
  };
}

// settle runs a tool through the session and reports how it went.
async function settle(session, name, args, seen, onTask) {
  const execution = await session.callTool(name, args, { task: { preference: 'require' }, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  const statuses = [];
  const { outcome } = await execution.settle({
    onEvent: async (event) => {
      if (event.type === 'task') {
        statuses.push(event.task.status);
        if (onTask) await onTask(execution, event.task);
      }
    }
  });
  const report = { kind: execution.kind, taskId: execution.handle && execution.handle.taskId, statuses, outcome: outcome.status };
  if (outcome.status === 'completed') report.text = textOf(resultFromTaskOutcome(outcome));
  if (outcome.status === 'failed') report.error = String(outcome.error && outcome.error.message);
  seen[name] = report;
}

async function main() {
  const [era, wire, ...target] = process.argv.slice(2);
  const http = wire === '--http' && target.length === 1;
  const stdio = wire === '--stdio' && target.length > 0 && era === 'legacy';
  if (!['legacy', 'modern'].includes(era) || !(http || stdio)) {
    process.stderr.write('usage: tasks-client.mjs legacy|modern --http URL | legacy --stdio COMMAND [ARG...]\n');
    process.exit(2);
  }
  const url = http ? target[0] : undefined;
  const transport = http
    ? new StreamableHTTPClientTransport(new URL(url))
    : new StdioClientTransport({ command: target[0], args: target.slice(1), env: process.env, stderr: 'inherit' });
  const options = { capabilities: clientCapabilities };
  if (era === 'modern') options.versionNegotiation = { mode: { pin: MODERN } };
  const client = new Client(clientInfo, options);
  await client.connect(transport);

  const questions = [];
  const sessionOptions = {
    endpointId: 'weft-interop-' + era,
    onInputRequest: async (request) => {
      questions.push(request.kind + ': ' + (request.params && request.params.message));
      return { action: 'accept', content: { name: 'Grace' } };
    },
    onError: (err) => process.stderr.write(`tasks-client.mjs: session error: ${err && err.stack ? err.stack : err}\n`)
  };
  if (era === 'modern') {
    sessionOptions.rawDispatch = rawDispatcher(url);
    sessionOptions.v2RequestFraming = { protocolVersion: MODERN, clientInfo, clientCapabilities };
  }
  const session = createTaskSessionFromClient(client, sessionOptions);
  const seen = { protocolVersion: client.getNegotiatedProtocolVersion(), capabilities: session.capabilities };
  try {
    await settle(session, 'slow_echo', { text: 'hi from a task' }, seen);
    await settle(session, 'task_ask_name', {}, seen);
    seen.questions = questions;
    let cancelling;
    await settle(session, 'task_wait', {}, seen, async (execution, task) => {
      if (!cancelling && task.status === 'working') cancelling = execution.cancel();
    });
    await cancelling;
    if (session.capabilities.inventory === 'server-list') {
      const page = await session.listTasks();
      seen.listed = page.tasks.map((t) => ({ taskId: t.taskId, status: t.status }));
    }
  } finally {
    await session.close();
    await client.close();
  }
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`tasks-client.mjs: ${err && err.stack ? err.stack : err}\n`);
  if (err && err.cause) process.stderr.write(`caused by: ${err.cause.stack || err.cause}\n`);
  process.exit(1);
});

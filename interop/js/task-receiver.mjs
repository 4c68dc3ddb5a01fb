#!/usr/bin/env node
// Serves weft's client-hosted tasks (2025-11-25) with the official Tasks
// receiver (@modelcontextprotocol/ext-tasks/receiver) bound to the
// TypeScript SDK v2 client, and prints what it observed as one JSON object
// on stdout for the Go test in interop/ to judge. It fails (exit 1, reason
// on stderr) only when a step throws where it must not.
//
//   node task-receiver.mjs --http URL
//   node task-receiver.mjs --stdio COMMAND [ARG...]
//
// The server serves the interop fixture's client-task tools
// (elicit_as_task, sample_as_task, cancel_client_task), each of which sends
// the client a task-augmented request and reports what became of the task.
// The packages are ES modules, which NODE_PATH does not reach: they are
// imported from the node_modules directory NODE_PATH names.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.NODE_PATH;
const load = (file) => import(pathToFileURL(path.join(modules, file)).href);
const { Client, StreamableHTTPClientTransport } = await load('@modelcontextprotocol/client/dist/index.mjs');
const { StdioClientTransport } = await load('@modelcontextprotocol/client/dist/stdio.mjs');
const { bindTaskReceiver } = await load('@modelcontextprotocol/ext-tasks/dist/receiver/index.js');

const REQUEST_TIMEOUT_MS = 10000;

function textOf(result) {
  return ((result && result.content) || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function main() {
  const [wire, ...target] = process.argv.slice(2);
  let transport;
  if (wire === '--http' && target.length === 1) {
    transport = new StreamableHTTPClientTransport(new URL(target[0]));
  } else if (wire === '--stdio' && target.length > 0) {
    transport = new StdioClientTransport({ command: target[0], args: target.slice(1), env: process.env, stderr: 'inherit' });
  } else {
    process.stderr.write('usage: task-receiver.mjs --http URL | --stdio COMMAND [ARG...]\n');
    process.exit(2);
  }

  const client = new Client({ name: 'weft-interop-task-receiver', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {} } });
  const received = [];
  const receiver = bindTaskReceiver(client, {
    methods: { 'elicitation/create': true, 'sampling/createMessage': true },
    pollIntervalMs: 50,
    elicitation: async (request, { taskId, signal }) => {
      received.push({ method: request.method, message: request.params.message, taskId });
      if (request.params.message === 'Wait for me') {
        // Held until the server cancels the task.
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        return { action: 'cancel' };
      }
      return { action: 'accept', content: { name: 'Grace' } };
    },
    sampling: async (request, { taskId }) => {
      received.push({ method: request.method, taskId });
      return { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'interop-model' };
    },
    onError: (err, context) => process.stderr.write(`task-receiver.mjs: receiver error in ${context.method}: ${err && err.stack ? err.stack : err}\n`)
  });
  client.registerCapabilities({ tasks: receiver.capabilities });
  await client.connect(transport);

  const seen = { protocolVersion: client.getNegotiatedProtocolVersion() };
  try {
    for (const tool of ['elicit_as_task', 'sample_as_task', 'cancel_client_task']) {
      const result = await client.callTool({ name: tool, arguments: {} }, { timeout: REQUEST_TIMEOUT_MS });
      seen[tool] = { text: textOf(result), isError: result.isError === true };
    }
  } finally {
    receiver.close();
    await client.close();
  }
  seen.received = received;
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`task-receiver.mjs: ${err && err.stack ? err.stack : err}\n`);
  if (err && err.cause) process.stderr.write(`caused by: ${err.cause.stack || err.cause}\n`);
  process.exit(1);
});

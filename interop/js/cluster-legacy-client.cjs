#!/usr/bin/env node
// Drives a cluster of `weft serve` instances behind a load balancer with the
// TypeScript SDK v1 client (legacy era, one Mcp-Session-Id for the whole
// flow) and prints what it observed as one JSON object on stdout. The Go
// test in interop/ (cluster_test.go) judges the observations and checks
// that every instance served part of the flow; this script fails (exit 1,
// reason on stderr) only when a step throws where it must not.
//
//   node cluster-legacy-client.cjs URL [--elicit] [--pause]
//
// URL is the load balancer's endpoint; the servers behind it serve weft's
// example tools (echo, sleep, confirm) and resource weft://example/readme.
// --elicit adds a call of confirm, whose elicitation the client answers by
// a POST that the balancer may send to another instance than the one
// running the handler. --pause stops the flow halfway (after the plain
// calls): the script prints a line "paused" on stdout and goes on when it
// reads a line on stdin, so the test can kill an instance mid-session. Run
// with NODE_PATH pointing at the node_modules that install.sh prints.
'use strict';

const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const readline = require('node:readline');
const { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const REQUEST_TIMEOUT_MS = 30000;
const README = 'weft://example/readme';

function textOf(content) {
  return (content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function main() {
  const [url, ...flags] = process.argv.slice(2);
  if (!url || flags.some((f) => f !== '--elicit' && f !== '--pause')) {
    process.stderr.write('usage: cluster-legacy-client.cjs URL [--elicit] [--pause]\n');
    process.exit(2);
  }
  const elicit = flags.includes('--elicit');
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'weft-interop-cluster-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { answer: true } };
  });
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  const seen = {};

  await client.connect(transport);
  seen.sessionId = transport.sessionId;
  seen.protocolVersion = transport.protocolVersion;
  seen.serverInfo = client.getServerVersion();

  const tools = await client.listTools({}, opts);
  seen.tools = tools.tools.map((t) => t.name);

  // Plain calls, more than there are instances.
  seen.echoes = [];
  for (let i = 1; i <= 6; i++) {
    const r = await client.callTool({ name: 'echo', arguments: { text: 'call ' + i } }, undefined, opts);
    seen.echoes.push(textOf(r.content));
  }

  if (flags.includes('--pause')) {
    process.stdout.write('paused\n');
    const rl = readline.createInterface({ input: process.stdin });
    await rl[Symbol.asyncIterator]().next();
    rl.close();
  }

  // Progress reaches the client on the stream of the call it belongs to.
  const progress = [];
  const slept = await client.callTool({ name: 'sleep', arguments: { seconds: 2 } }, undefined, {
    ...opts,
    onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message })
  });
  seen.sleep = { text: textOf(slept.content), progress };

  await client.setLoggingLevel('debug', opts);
  seen.setLevel = 'ok';
  await client.subscribeResource({ uri: README }, opts);
  seen.subscribed = 'ok';
  const readme = await client.readResource({ uri: README }, opts);
  seen.readme = readme.contents.map((c) => c.text).join('');
  await client.unsubscribeResource({ uri: README }, opts);
  seen.unsubscribed = 'ok';

  // A task on the 2025-11-25 surface: created by tools/call with a task,
  // polled with tasks/get until it ends, its result read with tasks/result.
  const created = await client.request(
    { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 1 }, task: { ttl: 60000 } } },
    CreateTaskResultSchema,
    opts
  );
  const taskId = created.task.taskId;
  const statuses = [created.task.status];
  let task = created.task;
  while (!['completed', 'failed', 'cancelled'].includes(task.status)) {
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval || 200));
    task = await client.experimental.tasks.getTask(taskId, opts);
    statuses.push(task.status);
  }
  const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, opts);
  seen.task = { taskId, statuses, text: textOf(result.content) };

  if (elicit) {
    const confirmed = await client.callTool({ name: 'confirm', arguments: { question: 'Ship it?' } }, undefined, opts);
    seen.elicitation = { text: textOf(confirmed.content), asked };
  }

  await transport.terminateSession();
  seen.deleted = transport.sessionId === undefined;
  await client.close();
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`cluster-legacy-client.cjs: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});

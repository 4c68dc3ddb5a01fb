#!/usr/bin/env node
// Drives a cluster of `weft serve` instances behind a load balancer with the
// TypeScript SDK v2 client pinned to 2026-07-28, whose multi-round-trip
// requests carry their state (requestState) from round to round: each call
// of confirm gets input_required, and the SDK answers the elicitation and
// retries with inputResponses and the requestState. Prints what it observed
// as one JSON object on stdout for the Go test in interop/ (cluster_test.go),
// which checks in the instances' logs that the rounds of each call were
// served by different instances.
//
//   node cluster-modern-client.cjs URL QUESTION...
//
// Run with NODE_PATH pointing at the node_modules that install.sh prints.
'use strict';

const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');

const REQUEST_TIMEOUT_MS = 30000;

function textOf(content) {
  return (content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function main() {
  const [url, ...questions] = process.argv.slice(2);
  if (!url || questions.length === 0) {
    process.stderr.write('usage: cluster-modern-client.cjs URL QUESTION...\n');
    process.exit(2);
  }
  const client = new Client(
    { name: 'weft-interop-cluster-modern-client', version: '2.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
  );
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { answer: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const seen = { protocolVersion: client.getNegotiatedProtocolVersion(), answers: [] };
  for (const question of questions) {
    const r = await client.callTool({ name: 'confirm', arguments: { question } }, { timeout: REQUEST_TIMEOUT_MS });
    seen.answers.push(textOf(r.content));
  }
  seen.asked = asked;
  await client.close();
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`cluster-modern-client.cjs: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});

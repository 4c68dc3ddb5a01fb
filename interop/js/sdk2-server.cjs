#!/usr/bin/env node
// Serves the interop fixture set (the tools, resource, template and prompt
// of interop/fixture_test.go) with the TypeScript SDK v2 server
// (@modelcontextprotocol/server), which speaks 2026-07-28 and the legacy
// versions, for weft's client to drive.
//
//   node sdk2-server.cjs --stdio   serve stdin/stdout
//   node sdk2-server.cjs --http    serve Streamable HTTP on 127.0.0.1, an
//                                  ephemeral port; the first line on stdout
//                                  is the endpoint URL
//
// Run with NODE_PATH pointing at the node_modules that install.sh prints.
'use strict';

const http = require('node:http');
const { McpServer, ResourceTemplate, createMcpHandler, inputRequired, acceptedContent } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const z = require('zod');

// Calls of wait_for_cancel whose request was cancelled, across the
// per-request server instances the HTTP handler makes.
let cancelled = 0;

const nameForm = z.object({ name: z.string() });

function text(t) {
  return { content: [{ type: 'text', text: t }] };
}

function newServer() {
  const server = new McpServer({ name: 'ts2-interop-server', version: '2.0.0' }, { capabilities: { logging: {} } });

  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: z.object({ text: z.string() }) },
    async ({ text: t }) => text('echo: ' + t));

  server.registerTool('add', {
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ sum: z.number() })
  }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));

  server.registerTool('countdown', {
    description: 'Reports progress steps times, then finishes',
    inputSchema: z.object({ steps: z.number().int() })
  }, async ({ steps }, ctx) => {
    const token = ctx.mcpReq._meta && ctx.mcpReq._meta.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: 'step ' + i } });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return text('done');
  });

  server.registerTool('ask_name', { description: 'Asks the user for a name, then greets them' }, async (ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name', nameForm);
    if (!answer) {
      return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameForm }) } });
    }
    return text('Hello, ' + answer.name + '!');
  });

  server.registerTool('wait_for_cancel', { description: 'Reports that it started, then waits until cancelled (at most a minute)' }, async (ctx) => {
    const token = ctx.mcpReq._meta && ctx.mcpReq._meta.progressToken;
    if (token !== undefined) {
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, message: 'started' } });
    }
    const signal = ctx.mcpReq.signal;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no cancellation arrived within a minute')), 60000);
      const onAbort = () => {
        clearTimeout(timer);
        cancelled++;
        resolve();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return text('cancelled');
  });

  server.registerTool('cancellations', { description: 'How many wait_for_cancel calls have been cancelled' },
    async () => text(String(cancelled)));

  server.registerResource('hello', 'interop://static/hello', { description: 'A static greeting', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from TypeScript' }] }));
  server.registerResource('item', new ResourceTemplate('interop://items/{id}', { list: undefined }), { description: 'An item by id', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'item ' + id }] }));

  server.registerPrompt('greeting', { description: 'Greets someone', argsSchema: z.object({ name: z.string().describe('who to greet') }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello, ' + name + '!' } }] }));
  return server;
}

// serveHTTP adapts Node's HTTP server to the SDK's fetch-shaped handler.
function serveHTTP() {
  const handler = createMcpHandler(() => newServer());
  const srv = http.createServer(async (req, res) => {
    try {
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const init = { method: req.method, headers: req.headers, signal: controller.signal };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        init.body = req;
        init.duplex = 'half';
      }
      const response = await handler.fetch(new Request('http://' + req.headers.host + req.url, init));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body) {
          res.write(chunk);
        }
      }
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end();
      if (err && err.name !== 'AbortError') process.stderr.write(`sdk2-server.cjs: ${err && err.stack ? err.stack : err}\n`);
    }
  });
  srv.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${srv.address().port}/mcp\n`);
  });
  // The test ends the server by closing its stdin.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}

const mode = process.argv[2];
if (mode === '--stdio') {
  serveStdio(() => newServer());
} else if (mode === '--http') {
  serveHTTP();
} else {
  process.stderr.write('usage: sdk2-server.cjs --stdio | --http\n');
  process.exit(2);
}

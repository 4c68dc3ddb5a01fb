#!/usr/bin/env node
// Drives an OAuth-protected weft endpoint with the TypeScript SDK v2 client
// and its client credentials provider (machine-to-machine authorization),
// and prints what it observed as one JSON object on stdout for the Go test
// in interop/ to judge.
//
//   node sdk2-auth-client.cjs legacy|modern URL ISSUER CLIENT_ID CLIENT_SECRET [dpop]
//
// With "dpop" the client asks for a DPoP-bound token (RFC 9449) and presents
// it with a fresh proof per request.
//
// The endpoint answers 401 until the client has a token; the SDK discovers
// the authorization server from the protected resource metadata, gets a
// token with its credentials and retries. Run with NODE_PATH pointing at
// the node_modules that install.sh prints.
'use strict';

const { Client, StreamableHTTPClientTransport, ClientCredentialsProvider, DpopSession } = require('@modelcontextprotocol/client');

// DpopClientCredentials is the SDK's client credentials provider with a
// DPoP key, which makes the SDK bind the token to it.
class DpopClientCredentials extends ClientCredentialsProvider {
  constructor(options) {
    super(options);
    this.session = DpopSession.create();
  }
  dpop() {
    return this.session;
  }
}

function textOf(result) {
  return ((result && result.content) || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function main() {
  const [era, url, issuer, clientId, clientSecret, dpop] = process.argv.slice(2);
  if (!['legacy', 'modern'].includes(era) || !clientSecret) {
    process.stderr.write('usage: sdk2-auth-client.cjs legacy|modern URL ISSUER CLIENT_ID CLIENT_SECRET [dpop]\n');
    process.exit(2);
  }
  const Provider = dpop === 'dpop' ? DpopClientCredentials : ClientCredentialsProvider;
  const authProvider = new Provider({ clientId, clientSecret, expectedIssuer: issuer });
  const options = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  const client = new Client({ name: 'weft-interop-ts2-auth', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  const seen = { protocolVersion: client.getNegotiatedProtocolVersion() };
  seen.whoami = textOf(await client.callTool({ name: 'whoami', arguments: {} }));
  seen.echo = textOf(await client.callTool({ name: 'echo', arguments: { text: 'with a token' } }));
  await client.close();
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((err) => {
  process.stderr.write(`sdk2-auth-client.cjs: ${err && err.stack ? err.stack : err}\n`);
  if (err && err.cause) process.stderr.write(`caused by: ${err.cause.stack || err.cause}\n`);
  process.exit(1);
});

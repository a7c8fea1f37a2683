#!/usr/bin/env node
// TypeScript SDK client of the gateway e2e test (gateway_test.go):
//
//   node gateway-client.mjs <url> <bearer token>
//
// Calls tools of the TypeScript reference server through the mcpchain
// gateway (proxy package) over Streamable HTTP with a bearer token, answers
// the upstream's sampling request, collects progress, cancels a slow call,
// and prints ONE JSON object on stdout. It asserts nothing: each step
// records its result or {error}.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, token] = process.argv.slice(2);
const out = {};
const step = async (name, fn) => {
  try {
    out[name] = await fn();
  } catch (e) {
    out[name] = { error: String(e?.message ?? e), code: e?.code };
  }
};

const client = new Client({ name: 'ts-gateway-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  const m = req.params.messages[0];
  return { role: 'assistant', model: 'ts-test', content: { type: 'text', text: 'ts model says: ' + m.content.text } };
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await step('connect', async () => {
  await client.connect(transport);
  return client.getServerVersion();
});
await step('tools', async () => (await client.listTools()).tools.map((t) => t.name));
await step('add', async () => (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content[0].text);
await step('sample', async () => (await client.callTool({ name: 'sample', arguments: { text: 'hi' } })).content[0].text);
await step('progress', async () => {
  const seen = [];
  const r = await client.callTool({ name: 'progress', arguments: {} }, undefined, {
    onprogress: (p) => seen.push(p),
  });
  return { text: r.content[0].text, progress: seen };
});
await step('cancel', async () => {
  const start = Date.now();
  const ac = new AbortController();
  setTimeout(() => ac.abort('test cancels'), 300);
  try {
    await client.callTool({ name: 'slow', arguments: { ms: 900 } }, undefined, { signal: ac.signal });
    return { cancelled: false, ms: Date.now() - start };
  } catch (e) {
    return { cancelled: true, ms: Date.now() - start, error: String(e?.message ?? e) };
  }
});
await step('after', async () => (await client.callTool({ name: 'echo', arguments: { text: 'still here' } })).content[0].text);
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n');

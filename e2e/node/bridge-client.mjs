#!/usr/bin/env node
// TypeScript SDK stdio client of the bridge e2e test (bridge_test.go):
//
//   node bridge-client.mjs <command> [args...]
//
// Spawns <command> (mcpchain bridge URL --oauth …) as its stdio server, as
// a desktop client does, with this process's environment (the test's
// HOME) and its stderr inherited (where the bridge prints the login URL),
// then lists the tools, calls add and whoami, and prints ONE JSON object
// on stdout. It asserts nothing: each step records its result or {error}.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const out = {};
const step = async (name, fn) => {
  try {
    out[name] = await fn();
  } catch (e) {
    out[name] = { error: String(e?.message ?? e), code: e?.code };
  }
};

const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });
const client = new Client({ name: 'ts-stdio-desktop', version: '1.0.0' }, { capabilities: {} });
// The first start waits for a login in the browser: allow it time.
await step('connect', async () => {
  await client.connect(transport, { timeout: 90_000 });
  return client.getServerVersion();
});
await step('tools', async () => (await client.listTools()).tools.map((t) => t.name).sort());
await step('add', async () => (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content[0].text);
await step('whoami', async () => {
  const r = await client.callTool({ name: 'whoami', arguments: {} });
  return { isError: r.isError ?? false, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? '' };
});
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n');

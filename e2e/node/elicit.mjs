#!/usr/bin/env node
// Elicitation against the server of e2e/elicit_test.go, with the official TypeScript SDK clients:
//
//   node elicit.mjs v1 default http://127.0.0.1:PORT/mcp          (@modelcontextprotocol/sdk, 2025-11-25)
//   node elicit.mjs v2 pin:2026-07-28 http://127.0.0.1:PORT/mcp   (@modelcontextprotocol/client)
//
// The client declares elicitation {form, url}. Its elicitation handler records every request; for a
// URL it "opens" the page with fetch (the user's browser) before it accepts; a form it accepts with
// {size: "l", toppings: ["basil"], delivery: true}. A second client declares form mode only.
// Prints ONE JSON object: {sdkVersion, protocolVersion, requests[], notifications[], steps{…}}; each
// step is a result {text, isError} or an error {error, name, class, code, data}. It never asserts.

import { readFileSync } from 'node:fs';

const [sdk, mode, url] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || !mode || !url) {
  process.stderr.write('usage: node elicit.mjs v1|v2 default|pin:<rev> <url>\n');
  process.exit(64);
}
const STEP_MS = 10000;
const pkgDir = sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
const sdkVersion = JSON.parse(readFileSync(new URL(`./node_modules/${pkgDir}/package.json`, import.meta.url), 'utf8')).version;

let Client, StreamableHTTPClientTransport, ElicitRequestSchema;
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  ({ ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js'));
} else {
  ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
}

const out = { sdk, sdkVersion, mode, protocolVersion: null, requests: [], notifications: [], steps: {} };

async function connect(name, elicitation) {
  const options = { capabilities: { elicitation } };
  if (sdk === 'v2' && mode !== 'default') {
    options.versionNegotiation = { mode: mode.startsWith('pin:') ? { pin: mode.slice(4) } : mode };
  }
  const client = new Client({ name, version: '0.0.1' }, options);
  const handler = async (req) => {
    const p = req.params;
    out.requests.push({ client: name, params: p });
    if (p.mode === 'url') {
      await fetch(p.url); // the user's browser opens the page
      return { action: 'accept' };
    }
    return { action: 'accept', content: { size: 'l', toppings: ['basil'], delivery: true } };
  };
  if (sdk === 'v1') client.setRequestHandler(ElicitRequestSchema, handler);
  else client.setRequestHandler('elicitation/create', handler);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  // Wire tap: the notifications the server sent, whatever the SDK does with them.
  let installed;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => installed,
    set: (fn) => {
      installed = fn && ((msg, extra) => {
        if (msg.method === 'notifications/elicitation/complete') out.notifications.push({ client: name, params: msg.params });
        return fn(msg, extra);
      });
    },
  });
  const orig = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    if (name === 'full') out.protocolVersion = v;
    orig?.(v);
  };
  await client.connect(transport);
  return client;
}

const textOf = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
async function step(client, name, tool) {
  try {
    const params = { name: tool, arguments: {} };
    const r = sdk === 'v1' ? await client.callTool(params, undefined, { timeout: STEP_MS }) : await client.callTool(params, { timeout: STEP_MS });
    out.steps[name] = { text: textOf(r), isError: !!r.isError };
  } catch (e) {
    out.steps[name] = { error: e?.message ?? String(e), name: e?.name, class: e?.constructor?.name, code: e?.code, data: e?.data };
  }
}
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

let full, formOnly;
try {
  full = await connect('full', { form: {}, url: {} });
  formOnly = await connect('form-only', {});
  await step(full, 'connect', 'connect');
  await step(full, 'account', 'account');
  const els = out.steps.account?.data?.elicitations;
  if (Array.isArray(els)) {
    // -32042: open the pages, wait for the server's completion notification, call again.
    for (const el of els) await fetch(el.url);
    for (let i = 0; i < 100 && out.notifications.length === 0; i++) await sleep(50);
    await step(full, 'accountRetry', 'account');
  }
  await step(full, 'form', 'form');
  await step(formOnly, 'formOnlyConnect', 'connect');
  await step(formOnly, 'formOnlyAccount', 'account');
} catch (e) {
  out.fatal = { error: e?.message ?? String(e), name: e?.name, code: e?.code };
}
process.stdout.write(JSON.stringify(out) + '\n');
await Promise.allSettled([full?.close(), formOnly?.close()]);
process.exit(0);

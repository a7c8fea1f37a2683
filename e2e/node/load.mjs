#!/usr/bin/env node
// A steady load from one official TypeScript SDK client (e2e/balancers_test.go).
//
//   node load.mjs v1 <url>                 @modelcontextprotocol/sdk (2025-11-25, a session)
//   node load.mjs v2 <url>                 @modelcontextprotocol/client pinned to 2026-07-28
//
// Connects, then calls tools one after another (add, and every fourth call slow for 200 ms)
// until its stdin ends, then closes the client and exits 0. Prints one JSON object per line on
// stdout: first {"connected": true, "protocolVersion": ...} (or {"connectError": ...}, exit 1),
// then one {"start": ms, "end": ms, "tool": ..., "error": null|message} per call (Unix ms).
// It never asserts: the Go test judges the calls. Diagnostics go to stderr.

const [sdk, url] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || !url) {
  process.stderr.write('usage: node load.mjs v1|v2 <url>\n');
  process.exit(64);
}
const CALL_MS = Number(process.env.LOAD_CALL_TIMEOUT_MS ?? 15000);

let Client, StreamableHTTPClientTransport;
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
} else {
  ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
}

const print = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const options = sdk === 'v2' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
const client = new Client({ name: `mcpchain-load-${sdk}`, version: '0.0.1' }, options);
client.onerror = (e) => process.stderr.write(`load.mjs: ${e?.message ?? e}\n`);
const transport = new StreamableHTTPClientTransport(new URL(url));

let stopping = false;
process.stdin.on('end', () => { stopping = true; });
process.stdin.on('close', () => { stopping = true; });
process.stdin.resume();

try {
  await client.connect(transport, { timeout: CALL_MS });
} catch (e) {
  print({ connectError: `${e?.name ?? 'Error'}: ${e?.message ?? e}` });
  process.exit(1);
}
print({ connected: true, protocolVersion: client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null });

const call = (name, args) => (sdk === 'v1'
  ? client.callTool({ name, arguments: args }, undefined, { timeout: CALL_MS })
  : client.callTool({ name, arguments: args }, { timeout: CALL_MS }));
const textOf = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');

for (let n = 0; !stopping; n++) {
  const slow = n % 4 === 3;
  const [tool, args, want] = slow ? ['slow', { ms: 200 }, 'slept 200 ms'] : ['add', { a: n, b: 1 }, String(n + 1)];
  const start = Date.now();
  let error = null;
  try {
    const r = await call(tool, args);
    const got = textOf(r);
    if (r.isError) error = `tool error: ${got}`;
    else if (!got.includes(want)) error = `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  } catch (e) {
    error = `${e?.name ?? 'Error'}: ${e?.message ?? e}${e?.code !== undefined ? ` (code ${e.code})` : ''}`;
  }
  print({ start, end: Date.now(), tool, error });
}
try {
  await client.close();
} catch (e) {
  process.stderr.write(`load.mjs: close: ${e?.message ?? e}\n`);
}
process.exit(0);

#!/usr/bin/env node
// The tools an OpenAPI document became (package openapi), driven by the
// official TypeScript SDK client; used by TestTypeScriptOpenAPI.
//
//   node openapi-client.mjs <url> <calls-json> [v1|v2]
//
// v1 is @modelcontextprotocol/sdk (1.32.2, revision 2025-11-25); v2 is
// @modelcontextprotocol/client (2.4.0) pinned to revision 2026-07-28.
// Connects over Streamable HTTP, lists the tools, then calls each
// {name, arguments} of <calls-json> in order. The SDK checks each
// tools/list entry against its schema and the structuredContent of each
// result against the tool's outputSchema. Prints ONE JSON object: the
// protocol version, the tools, and per call its result or error.

const [url, callsJSON, sdk = 'v1'] = process.argv.slice(2);
let Client, StreamableHTTPClientTransport;
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
} else {
  ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
}
const out = { sdk, protocolVersion: null, tools: null, calls: [], error: null };
const watchdog = setTimeout(() => {
  out.error = 'watchdog: no answer within 30 s';
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
}, 30000);

const options = {};
if (sdk === 'v2') options.versionNegotiation = { mode: { pin: '2026-07-28' } };
const client = new Client({ name: 'openapi-client', version: '0.0.1' }, options);
try {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  out.tools = (await client.listTools()).tools;
  for (const call of JSON.parse(callsJSON)) {
    try {
      out.calls.push({ result: await client.callTool(call) });
    } catch (e) {
      out.calls.push({ error: e instanceof Error ? e.message : String(e) });
    }
  }
} catch (e) {
  out.error = e instanceof Error ? e.message : String(e);
}
clearTimeout(watchdog);
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

#!/usr/bin/env node
// A client that knows nothing of tool search finds and calls an operation
// of Discord's API through it (package toolsearch); used by
// TestToolSearchTypeScript.
//
//   node toolsearch-client.mjs <v1|v2> <url|stdio:command> <query> <tool> <arguments-json>
//
// v1 is @modelcontextprotocol/sdk (1.32.2, revision 2025-11-25); v2 is
// @modelcontextprotocol/client (2.4.0) pinned to revision 2026-07-28. A
// stdio target is started with TOOLSEARCH_STDIO_SERVE=1 in its
// environment. Lists the tools, calls search_tools with <query>, reads the
// tools found from the result's text (JSON, as a model would), and calls
// call_tool with <tool> and <arguments-json> when <tool> was found. The SDK
// checks the structuredContent of each result against the tool's
// outputSchema. Prints ONE JSON object.

const [sdk, target, query, tool, argsJSON] = process.argv.slice(2);
let Client, StreamableHTTPClientTransport, StdioClientTransport;
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js'));
} else {
  ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/client/stdio'));
}
const out = { sdk, protocolVersion: null, tools: null, found: null, searchIsError: null, call: null, error: null };
const watchdog = setTimeout(() => {
  out.error = 'watchdog: not done within 150 s';
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
}, 150000);

const options = {};
// A stdio server started under the race detector on a loaded machine may
// take long to answer the version probe (it loads Discord's document
// first).
if (sdk === 'v2') options.versionNegotiation = { mode: { pin: '2026-07-28' }, probe: { timeoutMs: 140000 } };
const client = new Client({ name: 'toolsearch-client', version: '0.0.1' }, options);
const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
try {
  const transport = target.startsWith('stdio:')
    ? new StdioClientTransport({ command: target.slice('stdio:'.length), env: { ...process.env, TOOLSEARCH_STDIO_SERVE: '1' }, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(target));
  await client.connect(transport);
  // v1 over stdio does not tell the negotiated version: null there.
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  const res = await client.callTool({ name: 'search_tools', arguments: { query } });
  out.searchIsError = res.isError ?? false;
  const found = JSON.parse(text(res)).tools;
  out.found = found.map((t) => ({ name: t.name, required: t.inputSchema?.required ?? [] }));
  if (found.some((t) => t.name === tool)) {
    const r = await client.callTool({ name: 'call_tool', arguments: { name: tool, arguments: JSON.parse(argsJSON) } });
    out.call = { isError: r.isError ?? false, text: text(r), structured: r.structuredContent ?? null };
  }
} catch (e) {
  out.error = e instanceof Error ? e.message : String(e);
}
clearTimeout(watchdog);
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

#!/usr/bin/env node
// Sampling with tools (MCP 2025-11-25, SEP-1577) from the official
// TypeScript SDK client, used by TestTypeScriptSamplingTools.
//
//   node sampling-tools.mjs <url> <tool> [tools|plain] [v1|v2]
//
// v1 is @modelcontextprotocol/sdk (1.32.2, revision 2025-11-25: the
// server's requests come on the call's stream); v2 is
// @modelcontextprotocol/client (2.4.0) pinned to revision 2026-07-28 (the
// server's questions come as input-required results, which the client
// answers with the same handler and sends the call again).
// Connects over Streamable HTTP, declaring sampling with its tools member
// ("tools", the default) or without ("plain"), calls <tool> with no
// arguments, and answers sampling/createMessage as a model with tools
// does: a tool_use of the first tool offered, then, once the request
// carries its tool_result, text quoting it. Prints ONE JSON object: the
// tool's result (or error) and every sampling request's params. The SDK
// validates each request against its schema (CreateMessageRequestSchema)
// and each answer against CreateMessageResultWithToolsSchema.

const [url, tool, mode = 'tools', sdk = 'v1'] = process.argv.slice(2);
let Client, StreamableHTTPClientTransport, CreateMessageRequestSchema;
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  ({ CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js'));
} else {
  ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
}
const out = { sdk, protocolVersion: null, requests: [], result: null, error: null };
const watchdog = setTimeout(() => {
  out.error = 'watchdog: no answer within 30 s';
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
}, 30000);

const sampling = mode === 'tools' ? { tools: {} } : {};
const options = { capabilities: { sampling } };
if (sdk === 'v2') options.versionNegotiation = { mode: { pin: '2026-07-28' } };
const client = new Client({ name: 'sampling-tools', version: '0.0.1' }, options);

client.setRequestHandler(sdk === 'v1' ? CreateMessageRequestSchema : 'sampling/createMessage', async (req) => {
  const p = req.params;
  out.requests.push(p);
  const last = p.messages[p.messages.length - 1];
  const blocks = Array.isArray(last.content) ? last.content : [last.content];
  const results = blocks.filter((b) => b.type === 'tool_result');
  if (results.length === 0) {
    const name = p.tools?.[0]?.name ?? 'none';
    return {
      role: 'assistant',
      model: 'ts-model',
      stopReason: 'toolUse',
      content: [{ type: 'tool_use', id: 'ts-call-1', name, input: { city: 'Paris' } }],
    };
  }
  const text = results.map((r) => `${r.toolUseId}=${r.content.map((c) => c.text).join('')}`).join(';');
  return { role: 'assistant', model: 'ts-model', stopReason: 'endTurn', content: { type: 'text', text: `model saw ${text}` } };
});

try {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  out.result = await client.callTool({ name: tool, arguments: {} });
} catch (e) {
  out.error = e instanceof Error ? e.message : String(e);
}
clearTimeout(watchdog);
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

#!/usr/bin/env node
// The Vercel AI SDK's MCP client (@ai-sdk/mcp) and its tool loop (ai's
// generateText), with a scripted model, finding and calling an operation
// of Discord's API through tool search (package toolsearch); used by
// TestToolSearchAISDK.
//
//   node aisdk-client.mjs <url|stdio:command> <2025-11-25|2026-07-28> <query> <tool> <arguments-json>
//
// Needs the packages ai and @ai-sdk/mcp (see README.md). The client
// negotiates 2026-07-28 through server/discover, or 2025-11-25 through
// initialize (protocolVersionDiscovery: false). client.tools() turns the
// server's tools/list into the AI SDK's tools; the scripted model calls
// search_tools with <query>, reads the result the SDK hands back to it,
// then calls call_tool with <tool> when the search found it, then
// answers. A stdio target is started with TOOLSEARCH_STDIO_SERVE=1 in its
// environment. Prints ONE JSON object.

import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

const [target, version, query, tool, argsJSON] = process.argv.slice(2);
const out = { tools: null, steps: [], found: null, call: null, text: null, error: null };
const watchdog = setTimeout(() => {
  out.error = 'watchdog: not done within 150 s';
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
}, 150000);

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const toolCall = (id, name, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_use' },
  usage,
  warnings: [],
});
// lastToolResult is the output of the last tool result in the prompt the
// SDK sends the model, as the model reads it.
const lastToolResult = (prompt) => {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role !== 'tool') continue;
    const part = m.content.filter((p) => p.type === 'tool-result').at(-1);
    if (part) return part.output;
  }
  return null;
};
const textOf = (output) => {
  const v = output?.value;
  if (typeof v === 'string') return v;
  if (Array.isArray(v?.content)) return v.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
  if (Array.isArray(v)) return v.filter((c) => c.type === 'text').map((c) => c.text).join('');
  return JSON.stringify(v);
};

let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    step++;
    if (step === 1) return toolCall('c1', 'search_tools', { query });
    if (step === 2) {
      const found = JSON.parse(textOf(lastToolResult(prompt))).tools.map((t) => t.name);
      out.found = found;
      if (found.includes(tool)) return toolCall('c2', 'call_tool', { name: tool, arguments: JSON.parse(argsJSON) });
    }
    if (step === 3) out.call = textOf(lastToolResult(prompt));
    return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
  },
});

let client;
try {
  const transport = target.startsWith('stdio:')
    ? new Experimental_StdioMCPTransport({ command: target.slice('stdio:'.length), env: { ...process.env, TOOLSEARCH_STDIO_SERVE: '1' }, stderr: 'inherit' })
    : { type: 'http', url: target };
  client = await createMCPClient({ transport, protocolVersionDiscovery: version === '2026-07-28' });
  const tools = await client.tools();
  out.tools = Object.keys(tools);
  const res = await generateText({ model, tools, prompt: 'Who is user ' + argsJSON + '?', stopWhen: stepCountIs(5) });
  out.text = res.text;
  out.steps = res.steps.map((s) => s.toolCalls.map((c) => c.toolName));
} catch (e) {
  out.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
clearTimeout(watchdog);
await client?.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

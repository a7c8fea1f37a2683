#!/usr/bin/env node
// The Vercel AI SDK's MCP client (@ai-sdk/mcp) and its tool loop (ai's
// generateText), with a scripted model, using an operation of Discord's
// API through tool search (package toolsearch; TestToolSearchAISDK) or
// through code mode (package codemode; TestCodeModeAISDK).
//
//   node aisdk-client.mjs search <url|stdio:command> <2025-11-25|2026-07-28> <query> <tool> <arguments-json>
//   node aisdk-client.mjs script <url|stdio:command> <2025-11-25|2026-07-28> <script> <failing-script>
//
// Needs the packages ai and @ai-sdk/mcp (see README.md). The client
// negotiates 2026-07-28 through server/discover, or 2025-11-25 through
// initialize (protocolVersionDiscovery: false). client.tools() turns the
// server's tools/list into the AI SDK's tools, and the scripted model
// reads each tool result the SDK hands back to it, then answers.
//
// search: the model calls search_tools with <query>, then call_tool with
// <tool> when the search found it.
// script: the model calls run_script with <script>, then with
// <failing-script>; each result's isError and structuredContent, which
// the model does not see, come from the loop's steps.
//
// A stdio target is started as discord-common.mjs says. Prints ONE JSON
// object.

import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

import { message, printOnce, stdioServer } from './discord-common.mjs';

const [mode, target, version, ...rest] = process.argv.slice(2);
const out = { tools: null, steps: [], found: null, call: null, results: null, text: null, error: null };
const done = printOnce(out);

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

// plans: for each mode, the model's next tool call at step n (1-based),
// given the text of the last tool result; null to answer.
const plans = {
  search: ([query, tool, argsJSON]) => (n, last) => {
    if (n === 1) return toolCall('c1', 'search_tools', { query });
    if (n === 2) {
      out.found = JSON.parse(last).tools.map((t) => t.name);
      if (out.found.includes(tool)) return toolCall('c2', 'call_tool', { name: tool, arguments: JSON.parse(argsJSON) });
    }
    if (n === 3) out.call = last;
    return null;
  },
  script: ([script, failing]) => {
    const read = [];
    out.results = read;
    return (n, last) => {
      if (n > 1) read.push({ text: last });
      if (n === 1) return toolCall('c1', 'run_script', { script });
      if (n === 2) return toolCall('c2', 'run_script', { script: failing });
      return null;
    };
  },
};
if (!plans[mode]) throw new Error(`mode ${mode}: want search or script`);
const plan = plans[mode](rest);

let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    step++;
    const next = plan(step, step > 1 ? textOf(lastToolResult(prompt)) : null);
    return next ?? { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
  },
});

let client;
try {
  const stdio = stdioServer(target);
  const transport = stdio ? new Experimental_StdioMCPTransport(stdio) : { type: 'http', url: target };
  client = await createMCPClient({ transport, protocolVersionDiscovery: version === '2026-07-28' });
  const tools = await client.tools();
  out.tools = Object.keys(tools);
  const res = await generateText({ model, tools, prompt: 'Who is the user in ' + JSON.stringify(rest) + '?', stopWhen: stepCountIs(5) });
  out.text = res.text;
  out.steps = res.steps.map((s) => s.toolCalls.map((c) => c.toolName));
  if (out.results) {
    // What the application sees of each result: the MCP result itself.
    const results = res.steps.flatMap((s) => s.toolResults);
    out.results.forEach((r, i) => {
      r.isError = results[i]?.output?.isError ?? false;
      r.structured = results[i]?.output?.structuredContent ?? null;
    });
  }
} catch (e) {
  out.error = message(e);
}
await client?.close().catch(() => {});
done();

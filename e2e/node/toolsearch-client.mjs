#!/usr/bin/env node
// A client that knows nothing of tool search finds and calls an operation
// of Discord's API through it (package toolsearch); used by
// TestToolSearchTypeScript.
//
//   node toolsearch-client.mjs <v1|v2> <url|stdio:command> <query> <tool> <arguments-json>
//
// v1 and v2 are the official TypeScript SDK's clients (see
// discord-common.mjs). Lists the tools, calls search_tools with <query>,
// reads the tools found from the result's text (JSON, as a model would),
// and calls call_tool with <tool> and <arguments-json> when <tool> was
// found. Prints ONE JSON object.

import { connectSDK, message, printOnce, resultText } from './discord-common.mjs';

const [sdk, target, query, tool, argsJSON] = process.argv.slice(2);
const out = { sdk, protocolVersion: null, tools: null, found: null, searchIsError: null, call: null, error: null };
const done = printOnce(out);
let client;
try {
  let protocolVersion;
  ({ client, protocolVersion } = await connectSDK(sdk, target, 'toolsearch-client'));
  out.protocolVersion = protocolVersion;
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  const res = await client.callTool({ name: 'search_tools', arguments: { query } });
  out.searchIsError = res.isError ?? false;
  const found = JSON.parse(resultText(res)).tools;
  out.found = found.map((t) => ({ name: t.name, required: t.inputSchema?.required ?? [] }));
  if (found.some((t) => t.name === tool)) {
    const r = await client.callTool({ name: 'call_tool', arguments: { name: tool, arguments: JSON.parse(argsJSON) } });
    out.call = { isError: r.isError ?? false, text: resultText(r), structured: r.structuredContent ?? null };
  }
} catch (e) {
  out.error = message(e);
}
await client?.close().catch(() => {});
done();

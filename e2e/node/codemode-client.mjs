#!/usr/bin/env node
// A client that knows nothing of code mode runs scripts that call
// Discord's API (package codemode, its run_script tool pinned beside tool
// search); used by TestCodeModeTypeScript.
//
//   node codemode-client.mjs <v1|v2> <url|stdio:command> <script> <failing-script>
//
// v1 and v2 are the official TypeScript SDK's clients (see
// discord-common.mjs). Lists the tools, then calls run_script with
// <script> and with <failing-script>, and reports each result: isError,
// its text, its structuredContent. Prints ONE JSON object.

import { connectSDK, message, printOnce, resultText } from './discord-common.mjs';

const [sdk, target, script, failing] = process.argv.slice(2);
const out = { sdk, protocolVersion: null, tools: null, script: null, scriptError: null, error: null };
const done = printOnce(out);
let client;
try {
  let protocolVersion;
  ({ client, protocolVersion } = await connectSDK(sdk, target, 'codemode-client'));
  out.protocolVersion = protocolVersion;
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  const run = async (src) => {
    const r = await client.callTool({ name: 'run_script', arguments: { script: src } });
    return { isError: r.isError ?? false, text: resultText(r), structured: r.structuredContent ?? null };
  };
  out.script = await run(script);
  out.scriptError = await run(failing);
} catch (e) {
  out.error = message(e);
}
await client?.close().catch(() => {});
done();

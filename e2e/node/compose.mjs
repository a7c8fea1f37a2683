#!/usr/bin/env node
// A composed server (mcp.Server.Mount) seen by the official TypeScript SDK
// client (@modelcontextprotocol/sdk 1.32.2), used by
// TestComposeTypeScriptClient.
//
//   node compose.mjs <url|stdio:command> <tool> <args-json> <resource-uri> <template-uri> <prompt> <prompt-args-json> [remote-json]
//
// Connects over Streamable HTTP, or over stdio to a server it starts with
// COMPOSE_STDIO_SERVE=1 in its environment; lists tools, resources and templates,
// calls <tool>, reads <resource-uri> and <template-uri> (a URI the
// template matches), gets <prompt>, compares the parent's whoami with the
// child's notes_whoami, then calls notes_grow (the child registers the
// tool late) and waits for notifications/tools/list_changed before
// listing again and calling notes_late. With remote-json ({tool, args, uri,
// prompt, promptArgs}: the remote child, a server behind a mounted gateway),
// it also calls, reads and gets those, calls remote_sample (answered by this
// client's sampling handler) and remote_grow, then waits for another
// list_changed and remote_late in the list, and calls it. Prints ONE JSON
// object.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, tool, args, uri, templateURI, prompt, promptArgs, remoteSpec] = process.argv.slice(2);
const out = { tools: [], listChanged: 0, error: null };
const watchdog = setTimeout(() => {
  out.error = 'watchdog: not done within 30 s';
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
}, 30000);

const client = new Client({ name: 'compose', version: '0.0.1' }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
  role: 'assistant',
  model: 'ts',
  content: { type: 'text', text: `ts says ${req.params.messages[0].content.text}` },
}));
let changed;
const listChanged = new Promise((resolve) => { changed = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  out.listChanged++;
  changed();
});

const text = (res) => res.content.map((c) => c.text).join('');
try {
  const transport = url.startsWith('stdio:')
    ? new StdioClientTransport({ command: url.slice('stdio:'.length), env: { ...process.env, COMPOSE_STDIO_SERVE: '1' }, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  out.resources = (await client.listResources()).resources.map((r) => r.uri);
  out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  out.toolText = text(await client.callTool({ name: tool, arguments: JSON.parse(args) }));
  out.resource = (await client.readResource({ uri })).contents[0].text;
  out.template = (await client.readResource({ uri: templateURI })).contents[0].text;
  out.prompt = (await client.getPrompt({ name: prompt, arguments: JSON.parse(promptArgs) })).messages[0].content.text;
  const parentID = text(await client.callTool({ name: 'whoami', arguments: {} }));
  const childID = text(await client.callTool({ name: 'notes_whoami', arguments: {} }));
  out.sameSession = parentID !== '' && parentID === childID;
  await client.callTool({ name: 'notes_grow', arguments: {} });
  await listChanged;
  out.toolsAfter = (await client.listTools()).tools.map((t) => t.name);
  out.lateText = text(await client.callTool({ name: 'notes_late', arguments: {} }));
  if (remoteSpec) {
    const r = JSON.parse(remoteSpec);
    const remote = (out.remote = {});
    remote.toolText = text(await client.callTool({ name: r.tool, arguments: r.args }));
    remote.resource = (await client.readResource({ uri: r.uri })).contents[0].text;
    remote.prompt = (await client.getPrompt({ name: r.prompt, arguments: r.promptArgs })).messages[0].content.text;
    remote.sample = text(await client.callTool({ name: 'remote_sample', arguments: { text: 'hi' } }));
    const before = (remote.listChangedBefore = out.listChanged);
    await client.callTool({ name: 'remote_grow', arguments: {} });
    for (let i = 0; i < 200; i++) {
      remote.toolsAfter = (await client.listTools()).tools.map((t) => t.name);
      if (out.listChanged > before && remote.toolsAfter.includes('remote_late')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    remote.listChanged = out.listChanged;
    remote.lateText = text(await client.callTool({ name: 'remote_late', arguments: {} }));
  }
} catch (e) {
  out.error = String(e?.stack ?? e);
}
clearTimeout(watchdog);
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

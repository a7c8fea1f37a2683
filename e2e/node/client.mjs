#!/usr/bin/env node
// Scripted MCP client on the official TypeScript SDK, used by the Go e2e tests.
//
//   node client.mjs stdio <command> [args...]
//   node client.mjs http <url>            (Streamable HTTP, e.g. http://127.0.0.1:PORT/mcp)
//   node client.mjs sse <url>             (legacy HTTP+SSE, SSEClientTransport, e.g. http://127.0.0.1:PORT/sse)
//
// Runs a fixed scenario against examples/everything and prints ONE JSON object
// on stdout. It asserts nothing: every step catches its own error and records
// it as {error, code?, data?}; the Go test does the asserting. Diagnostics go to
// stderr (the stdio server's stderr is inherited too).
//
// Ordering: every message the server sends (responses, notifications, requests) is
// tapped off the transport as it arrives, before the SDK dispatches it, and takes
// the next value of one counter `i`. `events` lists them all in arrival order; each
// recorded log / stream / progress item and each tool result carries its `i`.
// (The wire tap matters: the SDK dispatches notifications a microtask late but
// responses at once, so a progress notification read in the same chunk as its
// response is dropped by the SDK as "unknown token"; see `sdkDispatch`.)

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

// (The package's "./*" export maps package.json to dist/cjs/package.json, so read the file.)
const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;
const STEP_TIMEOUT_MS = Number(process.env.MCP_CLIENT_STEP_TIMEOUT_MS ?? 10000);
const TOTAL_TIMEOUT_MS = Number(process.env.MCP_CLIENT_TOTAL_TIMEOUT_MS ?? 60000);

const [mode, ...rest] = process.argv.slice(2);
if (!['stdio', 'http', 'sse'].includes(mode) || rest.length === 0) {
  process.stderr.write('usage: node client.mjs stdio <command> [args...] | node client.mjs http <url> | node client.mjs sse <url>\n');
  process.exit(64);
}

const out = {
  transport: mode,
  sdkVersion: SDK_VERSION,
  target: rest,
  serverInfo: null,
  protocolVersion: null,
  capabilities: null,
  instructions: null,
  setLevel: null,
  tools: null,
  toolResults: {},
  progress: [],
  cancellation: null,
  resources: {},
  prompts: {},
  complete: null,
  errors: {},
  logs: [],
  streamContent: [],
  otherNotifications: [],
  clientRequests: [],
  sdkDispatch: { logs: 0, streamContent: 0, progress: [] },
  events: [],
};

let seq = 0;
function event(type, fields) {
  const i = seq++;
  out.events.push({ i, type, ...fields });
  return i;
}
const responseIndex = new Map(); // JSON-RPC id -> i of its response
const sentMethod = new Map(); // JSON-RPC id -> method we sent

function tap(msg) {
  if (msg.method !== undefined && msg.id !== undefined) {
    event('serverRequest', { method: msg.method, id: msg.id });
    return;
  }
  if (msg.method !== undefined) {
    const p = msg.params ?? {};
    switch (msg.method) {
      case 'notifications/message': {
        const i = event('log', { level: p.level });
        out.logs.push({ i, level: p.level, logger: p.logger ?? null, data: p.data });
        break;
      }
      case 'notifications/tool/streamContent': {
        const i = event('streamContent', {});
        out.streamContent.push({ i, params: msg.params ?? null });
        break;
      }
      case 'notifications/progress': {
        const i = event('progress', { progressToken: p.progressToken });
        out.progress.push({ i, progressToken: p.progressToken, progress: p.progress, total: p.total ?? null, message: p.message ?? null });
        break;
      }
      default: {
        const i = event('notification', { method: msg.method });
        out.otherNotifications.push({ i, method: msg.method, params: msg.params ?? null });
      }
    }
    return;
  }
  if (msg.id !== undefined) {
    const i = event('response', { id: msg.id, method: sentMethod.get(msg.id) ?? null, error: msg.error !== undefined });
    responseIndex.set(msg.id, i);
  }
}

function errInfo(e) {
  const r = { error: e instanceof Error ? e.message : String(e) };
  if (e && typeof e === 'object') {
    if (e.code !== undefined) r.code = e.code;
    if (e.data !== undefined) r.data = e.data;
    if (e.name && e.name !== 'Error') r.name = e.name;
  }
  return r;
}

async function step(fn) {
  try {
    return await fn();
  } catch (e) {
    return errInfo(e);
  }
}

let printed = false;
function emit(code) {
  if (printed) return;
  printed = true;
  process.stdout.write(JSON.stringify(out, null, 2) + '\n', () => process.exit(code));
}

// Never hang the Go test: print what we have and exit non-zero.
const watchdog = setTimeout(() => {
  out.watchdog = `total timeout ${TOTAL_TIMEOUT_MS} ms exceeded`;
  emit(2);
}, TOTAL_TIMEOUT_MS);
watchdog.unref();

const client = new Client(
  { name: 'mcpchain-e2e-client', version: '0.0.1' },
  {
    capabilities: {
      roots: { listChanged: true },
      sampling: {},
      elicitation: {},
    },
  },
);

client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  out.clientRequests.push({ method: req.method, params: req.params });
  const first = req.params.messages?.[0]?.content;
  const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '';
  return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'test-model' };
});

client.setRequestHandler(ElicitRequestSchema, async (req) => {
  out.clientRequests.push({ method: req.method, params: req.params });
  return { action: 'accept', content: { answer: 'yes' } };
});

client.setRequestHandler(ListRootsRequestSchema, async (req) => {
  out.clientRequests.push({ method: req.method, params: req.params ?? null });
  return { roots: [{ uri: 'file:///tmp/root1', name: 'root1' }] };
});

// The recording is done by the wire tap; these handlers show what the SDK itself delivers.
client.setNotificationHandler(LoggingMessageNotificationSchema, async () => {
  out.sdkDispatch.logs++;
});
// Unknown notifications (fastmcp's notifications/tool/streamContent, list_changed, ...).
client.fallbackNotificationHandler = async (n) => {
  if (n.method === 'notifications/tool/streamContent') out.sdkDispatch.streamContent++;
};

client.onerror = (e) => process.stderr.write(`client.mjs: transport/protocol error: ${e?.message ?? e}\n`);

let transport;
if (mode === 'stdio') {
  const [command, ...args] = rest;
  // Pass the whole environment (the SDK's default keeps only HOME, PATH, USER, ...).
  transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });
} else if (mode === 'sse') {
  transport = new SSEClientTransport(new URL(rest[0]));
} else {
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
}

// Wire tap: Protocol.connect installs transport.onmessage and then calls start().
{
  const origStart = transport.start.bind(transport);
  transport.start = async () => {
    const sdkOnMessage = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      try {
        tap(msg);
      } catch (e) {
        process.stderr.write(`client.mjs: tap: ${e}\n`);
      }
      sdkOnMessage?.(msg, extra);
    };
    return origStart();
  };
  const origSend = transport.send.bind(transport);
  transport.send = (msg, o) => {
    if (msg.method !== undefined && msg.id !== undefined) sentMethod.set(msg.id, msg.method);
    return origSend(msg, o);
  };
}

// Capture the negotiated protocol version: Client.connect hands it to
// transport.setProtocolVersion (HTTP has one; for stdio we add one).
let negotiatedVersion = null;
{
  const orig = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiatedVersion = v;
    orig?.(v);
  };
}

const opts = { timeout: STEP_TIMEOUT_MS };

let lastToolCallId;
async function callTool(name, args, extraOpts = {}) {
  const iStart = seq;
  const r = await step(() => client.callTool({ name, arguments: args }, undefined, { ...opts, ...extraOpts }));
  const id = lastToolCallId();
  r.i = responseIndex.get(id) ?? null; // null: no response came (e.g. cancelled)
  r.iStart = iStart;
  out.toolResults[name] = r;
  return r;
}
lastToolCallId = () => {
  let last;
  for (const [id, m] of sentMethod) if (m === 'tools/call') last = id;
  return last;
};

async function main() {
  try {
    await client.connect(transport, opts);
  } catch (e) {
    out.connect = errInfo(e);
    return 1;
  }
  out.serverInfo = client.getServerVersion() ?? null;
  out.capabilities = client.getServerCapabilities() ?? null;
  out.instructions = client.getInstructions() ?? null;
  out.protocolVersion = negotiatedVersion;
  if (mode === 'http') out.sessionId = transport.sessionId ?? null;

  out.setLevel = await step(() => client.setLoggingLevel('debug', opts));

  out.tools = await step(async () => {
    const r = await client.listTools(undefined, opts);
    return {
      names: r.tools.map((t) => t.name),
      inputSchemas: Object.fromEntries(r.tools.map((t) => [t.name, t.inputSchema])),
      raw: r.tools,
    };
  });

  await callTool('add', { a: 2, b: 3 });
  await callTool('echo', { text: 'hi' });
  await callTool('progress', {}, {
    onprogress: (p) => {
      out.sdkDispatch.progress.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null });
    },
  });
  await callTool('fail_user', {});
  await callTool('fail_internal', {});
  await callTool('whoami', {});
  await callTool('slow', { ms: 50 });
  await callTool('sample', { text: 'hello' });
  await callTool('elicit', {});
  await callTool('roots', {});

  // Cancellation: the SDK sends notifications/cancelled when the signal aborts and
  // rejects the pending request locally with the abort reason.
  {
    const ac = new AbortController();
    const t0 = Date.now();
    const timer = setTimeout(() => ac.abort(), 200);
    const r = await step(() =>
      client.callTool({ name: 'slow', arguments: { ms: 5000 } }, undefined, { ...opts, signal: ac.signal }),
    );
    clearTimeout(timer);
    out.cancellation = { elapsedMs: Date.now() - t0, ...r };
    const id = lastToolCallId();
    out.cancellation.requestId = id;
    // A server must not answer a cancelled request; give a late answer a moment to show up.
    await new Promise((res) => setTimeout(res, 100));
    out.cancellation.responseArrived = responseIndex.has(id);
    // The session must still work after a cancellation.
    out.cancellation.pingAfter = await step(() => client.ping(opts));
  }

  out.resources.list = await step(() => client.listResources(undefined, opts));
  out.resources.readHello = await step(() => client.readResource({ uri: 'file:///hello.txt' }, opts));
  out.resources.templates = await step(() => client.listResourceTemplates(undefined, opts));
  out.resources.readGreeting = await step(() => client.readResource({ uri: 'greeting://world' }, opts));

  out.prompts.list = await step(() => client.listPrompts(undefined, opts));
  out.prompts.getGreet = await step(() => client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, opts));

  out.complete = await step(() =>
    client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } }, opts),
  );

  out.errors.unknownTool = await step(() => client.callTool({ name: 'nope', arguments: {} }, undefined, opts));
  out.errors.missingResource = await step(() => client.readResource({ uri: 'file:///missing' }, opts));
  out.errors.unknownPrompt = await step(() => client.getPrompt({ name: 'nope' }, opts));

  if (mode === 'http') {
    const oldSession = transport.sessionId;
    out.terminate = {};
    out.terminate.terminateSession = await step(async () => {
      await transport.terminateSession();
      return { ok: true, sessionIdAfter: transport.sessionId ?? null };
    });
    // The SDK forgets the session id on a successful DELETE, so a request on the same
    // transport goes out WITHOUT Mcp-Session-Id (a server answers 400, not 404).
    out.terminate.sameTransport = await step(() => client.listTools(undefined, opts));
    // Re-using the terminated id (a client that missed the DELETE) must get 404.
    // Client.connect skips initialize when the transport already has a session id.
    out.terminate.oldSessionId = await step(async () => {
      const t2 = new StreamableHTTPClientTransport(new URL(rest[0]), { sessionId: oldSession });
      const c2 = new Client({ name: 'mcpchain-e2e-client-stale', version: '0.0.1' }, { capabilities: {} });
      c2.onerror = () => {};
      await c2.connect(t2);
      try {
        return await c2.listTools(undefined, opts);
      } finally {
        await c2.close().catch(() => {});
      }
    });
  }
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  out.fatal = errInfo(e);
} finally {
  await step(() => client.close());
}
emit(code);

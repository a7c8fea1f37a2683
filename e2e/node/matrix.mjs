#!/usr/bin/env node
// One cell of the client matrix (e2e/matrix_test.go) for the official TypeScript SDK clients.
//
//   node matrix.mjs <sdk> <mode> stdio <command> [args...]
//   node matrix.mjs <sdk> <mode> http <url>     (Streamable HTTP)
//   node matrix.mjs <sdk> <mode> sse <url>      (legacy HTTP+SSE)
//
// sdk:  v1 (@modelcontextprotocol/sdk) or v2 (@modelcontextprotocol/client).
// mode: default (v1; v2's default, which is its 'legacy' negotiation), legacy, auto, or
//       pin:<revision> (v2's versionNegotiation modes).
//
// Runs the matrix's behaviours against examples/everything, each checked here, and prints ONE
// JSON object on stdout: {sdk, sdkVersion, mode, transport, protocolVersion, results: {<behaviour>:
// {status: "pass"|"fail", detail}}}. Diagnostics go to stderr. Exit 0 unless connecting failed (1).

import { readFileSync } from 'node:fs';

const [sdk, mode, transportKind, ...rest] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || !mode || !['stdio', 'http', 'sse'].includes(transportKind) || rest.length === 0) {
  process.stderr.write('usage: node matrix.mjs v1|v2 default|legacy|auto|pin:<rev> stdio|http|sse <target...>\n');
  process.exit(64);
}
const STEP_MS = Number(process.env.MATRIX_STEP_TIMEOUT_MS ?? 10000);

const pkgDir = sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
const sdkVersion = JSON.parse(readFileSync(new URL(`./node_modules/${pkgDir}/package.json`, import.meta.url), 'utf8')).version;

let Client, StdioClientTransport, StreamableHTTPClientTransport, SSEClientTransport, schemas;
if (sdk === 'v1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js'));
  ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  ({ SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js'));
  const t = await import('@modelcontextprotocol/sdk/types.js');
  schemas = {
    'sampling/createMessage': t.CreateMessageRequestSchema,
    'elicitation/create': t.ElicitRequestSchema,
    'roots/list': t.ListRootsRequestSchema,
    'notifications/message': t.LoggingMessageNotificationSchema,
  };
} else {
  ({ Client, StreamableHTTPClientTransport, SSEClientTransport } = await import('@modelcontextprotocol/client'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/client/stdio'));
}

const out = { sdk, sdkVersion, mode, transport: transportKind, protocolVersion: null, results: {} };
const logs = [];
const progress = new Map(); // progress token -> notifications seen on the wire
let sampled = 0;
let elicited = 0;

const options = { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } };
if (sdk === 'v2' && mode !== 'default') {
  options.versionNegotiation = { mode: mode.startsWith('pin:') ? { pin: mode.slice(4) } : mode };
}
const client = new Client({ name: `mcpchain-matrix-ts-${sdk}`, version: '0.0.1' }, options);

function onRequest(method, handler) {
  if (sdk === 'v1') client.setRequestHandler(schemas[method], handler);
  else client.setRequestHandler(method, handler);
}
onRequest('sampling/createMessage', async (req) => {
  sampled++;
  const first = req.params.messages?.[0]?.content;
  const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '';
  return { role: 'assistant', content: { type: 'text', text: `sampled: ${text}` }, model: 'test-model' };
});
onRequest('elicitation/create', async () => {
  elicited++;
  return { action: 'accept', content: { answer: 'yes' } };
});
onRequest('roots/list', async () => ({ roots: [{ uri: 'file:///tmp/root1', name: 'root1' }] }));
client.onerror = (e) => process.stderr.write(`matrix.mjs: transport/protocol error: ${e?.message ?? e}\n`);

let transport;
if (transportKind === 'stdio') {
  const [command, ...args] = rest;
  transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });
} else if (transportKind === 'sse') {
  transport = new SSEClientTransport(new URL(rest[0]));
} else {
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
}

// Wire tap: what the server sent, before the SDK dispatches it (the SDK drops a progress
// notification that arrives in the same read as its response). Every handler the SDK installs
// as transport.onmessage is wrapped, including one installed after a version negotiation.
{
  const tap = (msg) => {
    if (msg.method === 'notifications/message') logs.push(msg.params);
    if (msg.method === 'notifications/progress') {
      const k = String(msg.params?.progressToken);
      progress.set(k, [...(progress.get(k) ?? []), msg.params]);
    }
  };
  let installed;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => installed,
    set: (fn) => {
      installed = fn && ((msg, extra) => {
        tap(msg);
        return fn(msg, extra);
      });
    },
  });
}
let negotiated = null;
{
  const orig = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiated = v;
    orig?.(v);
  };
}

const opts = { timeout: STEP_MS };
const textOf = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
class Fail extends Error {}
function check(cond, msg) {
  if (!cond) throw new Fail(msg);
}
// v1's callTool takes (params, resultSchema, options), v2's (params, options).
const call = (name, args, extra = {}, meta = undefined) => {
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  return sdk === 'v1' ? client.callTool(params, undefined, { ...opts, ...extra }) : client.callTool(params, { ...opts, ...extra });
};

async function behaviour(name, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    out.results[name] = { status: 'pass', detail: detail ?? '', ms: Date.now() - t0 };
  } catch (e) {
    const msg = e instanceof Fail ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}${e?.code !== undefined ? ` (code ${e.code})` : ''}`;
    out.results[name] = { status: 'fail', detail: msg, ms: Date.now() - t0 };
  }
}

async function main() {
  try {
    await client.connect(transport, opts);
  } catch (e) {
    out.connect = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
    return 1;
  }
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? negotiated;
  const modern = out.protocolVersion === '2026-07-28';

  await behaviour('list+call', async () => {
    const tools = await client.listTools(undefined, opts);
    check(tools.tools.some((t) => t.name === 'add'), `tools/list lacks add: ${tools.tools.map((t) => t.name)}`);
    const r = await call('add', { a: 2, b: 3 });
    check(!r.isError && textOf(r) === '5', `add 2+3: ${JSON.stringify(r)}`);
    return `${tools.tools.length} tools`;
  });
  await behaviour('structured', async () => {
    const r = await call('whoami', {});
    check(!r.isError, `whoami isError: ${JSON.stringify(r)}`);
    check(r.structuredContent && typeof r.structuredContent === 'object', `no structuredContent: ${JSON.stringify(r)}`);
    check(JSON.stringify(JSON.parse(textOf(r))) === JSON.stringify(r.structuredContent), 'text and structuredContent differ');
    check('client' in r.structuredContent, `structuredContent lacks client: ${JSON.stringify(r.structuredContent)}`);
  });
  await behaviour('bad-arg', async () => {
    const r = await call('add', { a: 'two', b: 3 });
    check(r.isError === true, `add a="two" not isError: ${JSON.stringify(r)}`);
    check(/\ba\b/.test(textOf(r)), `error does not name the argument: ${textOf(r)}`);
  });
  await behaviour('unknown-tool', async () => {
    try {
      const r = await call('nope', {});
      // v2 may surface a protocol error as an isError result.
      check(r.isError === true, `unknown tool answered: ${JSON.stringify(r)}`);
      return `isError result: ${textOf(r).slice(0, 80)}`;
    } catch (e) {
      if (e instanceof Fail) throw e;
      check(e?.code === -32602, `want -32602, got ${e?.code}: ${e?.message}`);
      return '-32602';
    }
  });
  await behaviour('resources', async () => {
    const list = await client.listResources(undefined, opts);
    check(list.resources.some((r) => r.uri === 'file:///hello.txt'), 'resources/list lacks file:///hello.txt');
    const hello = await client.readResource({ uri: 'file:///hello.txt' }, opts);
    check(hello.contents?.[0]?.text === 'hello', `read hello: ${JSON.stringify(hello)}`);
    const tpl = await client.listResourceTemplates(undefined, opts);
    check(tpl.resourceTemplates.some((t) => t.uriTemplate === 'greeting://{name}'), 'no greeting://{name} template');
    const g = await client.readResource({ uri: 'greeting://world' }, opts);
    check(g.contents?.[0]?.text === 'Hello, world!', `read greeting: ${JSON.stringify(g)}`);
  });
  await behaviour('prompts', async () => {
    const list = await client.listPrompts(undefined, opts);
    check(list.prompts.some((p) => p.name === 'greet'), 'prompts/list lacks greet');
    const p = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, opts);
    check(p.messages.some((m) => m.role === 'user' && m.content?.text?.includes('Ada')), `greet: ${JSON.stringify(p)}`);
  });
  await behaviour('progress', async () => {
    let seen = 0;
    const r = await call('progress', {}, { onprogress: () => seen++ });
    check(!r.isError && textOf(r).includes('done'), `progress: ${JSON.stringify(r)}`);
    let wire = 0;
    for (const list of progress.values()) wire += list.length;
    check(wire === 3, `want 3 progress notifications on the wire, got ${wire}`);
    return `wire 3, handler ${seen}`;
  });
  await behaviour('cancel+more', async () => {
    // report sleeps the 5 s it is asked for, with no limit of its own (slow's 1 s limit would
    // answer first whenever a loaded machine holds the abort back that long). The call must
    // end with the abort, before the tool would have answered; the bound is that answer's
    // time, not how quickly the abort is taken on a loaded machine.
    const toolMs = 5000;
    for (let round = 0; round < 2; round++) {
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 150);
      const t0 = Date.now();
      let err = null;
      try {
        await call('report', { ms: toolMs }, { signal: ac.signal });
      } catch (e) {
        err = e;
      }
      clearTimeout(timer);
      const took = Date.now() - t0;
      check(err !== null, `round ${round}: the cancelled call resolved`);
      // Both SDKs reject with the abort's reason in the message of their own error (whose code
      // is the request timeout's; a timeout's message is "Request timed out").
      const aborted = err === ac.signal.reason || String(err?.message ?? '').includes(String(ac.signal.reason));
      check(aborted, `round ${round}: the call ended with ${err?.name}: ${err?.message}, not with its abort`);
      check(took < toolMs, `round ${round}: the cancelled call took ${took} ms, as long as the tool`);
      const r = await call('add', { a: round, b: 1 });
      check(textOf(r) === String(round + 1), `round ${round}: call after cancel: ${JSON.stringify(r)}`);
    }
  });
  await behaviour('concurrent-20', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => call('add', { a: i, b: 1000 })));
    rs.forEach((r, i) => check(textOf(r) === String(i + 1000), `call ${i}: ${JSON.stringify(r)}`));
  });
  await behaviour('timeout', async () => {
    const t0 = Date.now();
    const r = await call('slow', { ms: 3000 });
    const ms = Date.now() - t0;
    check(r.isError === true, `slow 3000 not isError: ${JSON.stringify(r)}`);
    // The tool sleeps 3 s and has a 1 s limit: an isError naming the timeout proves it was cut.
    check(/time|deadline/i.test(textOf(r)) && textOf(r).includes('slow'), `timeout text: ${textOf(r)}`);
    return `${ms} ms`;
  });
  await behaviour('logging', async () => {
    // 2026-07-28 removed logging/setLevel: the level travels in each request's _meta.
    let meta;
    if (modern) meta = { 'io.modelcontextprotocol/logLevel': 'debug' };
    else await client.setLoggingLevel('debug', opts);
    const before = logs.length;
    await call('progress', {}, {}, meta);
    // The tool logs before it answers, on the call's own stream (stdio and HTTP+SSE have one
    // stream): the wire tap saw the messages before the answer reached the SDK, so there is
    // nothing to wait for.
    const got = logs.slice(before);
    check(got.some((l) => l.level === 'info'), `no info log after setLevel debug: ${JSON.stringify(got)}`);
    return `${got.length} log messages`;
  });
  await behaviour('sampling', async () => {
    const r = await call('sample', { text: 'hello' });
    check(!r.isError && textOf(r) === 'sampled: hello', `sample: ${JSON.stringify(r)}`);
    check(sampled > 0, 'the sampling handler was not called');
  });
  await behaviour('elicitation', async () => {
    const r = await call('elicit', {});
    check(!r.isError, `elicit: ${JSON.stringify(r)}`);
    const v = JSON.parse(textOf(r));
    check(v.action === 'accept' && v.content?.answer === 'yes', `elicit: ${textOf(r)}`);
    check(elicited > 0, 'the elicitation handler was not called');
  });
  out.modern = modern;
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  out.fatal = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(code));

#!/usr/bin/env node
// Reference "everything" server on the official TypeScript SDK (low-level Server API).
// It mirrors the fixtures of examples/everything (tools add, echo, slow, progress,
// fail_user, fail_internal, whoami, sample, elicit, roots; resource file:///hello.txt;
// template greeting://{name}; prompt greet) so client.mjs can be checked end to end
// against a known-good peer, and Go output can be compared with it.
//
//   node ref-server.mjs                          stdio
//   node ref-server.mjs --http 127.0.0.1:PORT    stateful Streamable HTTP at /mcp

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const obj = (properties, required = []) => ({ type: 'object', properties, required });
const TOOLS = [
  { name: 'add', description: 'Add two numbers', inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']) },
  { name: 'echo', description: 'Echo text', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
  { name: 'slow', description: 'Sleep ms (1 s timeout), honors cancellation', inputSchema: obj({ ms: { type: 'number' } }, ['ms']) },
  { name: 'progress', description: 'Progress, streamed content and logs', inputSchema: obj({}) },
  { name: 'fail_user', description: 'Returns a user error', inputSchema: obj({}) },
  { name: 'fail_internal', description: 'Throws', inputSchema: obj({}) },
  { name: 'whoami', description: 'Auth session as JSON', inputSchema: obj({}) },
  { name: 'sample', description: 'sampling/createMessage round trip', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
  { name: 'elicit', description: 'elicitation/create round trip', inputSchema: obj({}) },
  { name: 'roots', description: 'roots/list round trip', inputSchema: obj({}) },
];

const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new Error('cancelled'));
    }, { once: true });
  });

function newServer() {
  const server = new Server(
    { name: 'ref-everything', version: '0.0.1' },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, logging: {}, completions: {} },
      instructions: 'Reference everything server (TS SDK).',
    },
  );

  server.setRequestHandler(SetLevelRequestSchema, async () => ({}));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args = {} } = req.params;
    const log = (level, data) =>
      extra.sendNotification({ method: 'notifications/message', params: { level, logger: name, data } });
    switch (name) {
      case 'add':
        return text(String(args.a + args.b));
      case 'echo':
        return text(String(args.text));
      case 'slow': {
        const ms = Number(args.ms);
        if (ms > 1000) {
          try {
            await sleep(1000, extra.signal);
          } catch {
            return text('cancelled', true);
          }
          return text('tool "slow" timed out after 1000ms', true);
        }
        await sleep(ms, extra.signal).catch(() => {});
        return text(`slept ${ms}ms`);
      }
      case 'progress': {
        const token = extra._meta?.progressToken;
        await log('info', 'progress started');
        for (let i = 1; i <= 3; i++) {
          if (token !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: i, total: 3, message: `step ${i}` },
            });
          }
          if (i <= 2) {
            await extra.sendNotification({
              method: 'notifications/tool/streamContent',
              params: { content: [{ type: 'text', text: `chunk ${i}` }], toolName: name },
            });
          }
        }
        await log('debug', 'progress finished');
        return text('done');
      }
      case 'fail_user':
        return text('this is a user error', true);
      case 'fail_internal':
        return text('internal error', true);
      case 'whoami':
        return text(JSON.stringify(extra.authInfo ?? null));
      case 'sample': {
        const r = await server.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: String(args.text) } }], maxTokens: 100 },
          { relatedRequestId: extra.requestId },
        );
        return text(r.content.type === 'text' ? r.content.text : JSON.stringify(r.content));
      }
      case 'elicit': {
        const r = await server.elicitInput(
          { message: 'Answer?', requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
          { relatedRequestId: extra.requestId },
        );
        return text(JSON.stringify(r));
      }
      case 'roots': {
        const r = await server.listRoots(undefined, { relatedRequestId: extra.requestId });
        return text(JSON.stringify(r.roots));
      }
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'file:///hello.txt', name: 'hello', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'greeting://{name}', name: 'greeting', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const { uri } = req.params;
    if (uri === 'file:///hello.txt') return { contents: [{ uri, mimeType: 'text/plain', text: 'hello' }] };
    const m = /^greeting:\/\/(.+)$/.exec(uri);
    if (m) return { contents: [{ uri, mimeType: 'text/plain', text: `Hello, ${decodeURIComponent(m[1])}!` }] };
    throw new McpError(-32002, 'Resource not found', { uri });
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'greet', description: 'Greet someone', arguments: [{ name: 'name', required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== 'greet') throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    const who = req.params.arguments?.name;
    if (!who) throw new McpError(ErrorCode.InvalidParams, 'Missing required argument: name');
    return { messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who}!` } }] };
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const { ref, argument } = req.params;
    const values = ref.type === 'ref/prompt' && ref.name === 'greet' && argument.name === 'name'
      ? ['Ada', 'Alan', 'Grace'].filter((v) => v.startsWith(argument.value))
      : [];
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

const i = process.argv.indexOf('--http');
if (i < 0) {
  await newServer().connect(new StdioServerTransport());
} else {
  const [host, port] = process.argv[i + 1].split(':');
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    try {
      if (sid) {
        const t = sessions.get(sid);
        if (!t) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
          );
          return;
        }
        await t.handleRequest(req, res);
        return;
      }
      // No session id: only an initialize POST may open one; the transport answers 400 otherwise.
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, t),
        onsessionclosed: (id) => sessions.delete(id),
      });
      await newServer().connect(t);
      await t.handleRequest(req, res);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  httpServer.listen(Number(port), host, () => process.stderr.write(`ref-server listening on http://${host}:${port}/mcp\n`));
  const stop = () => httpServer.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

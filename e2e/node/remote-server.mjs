#!/usr/bin/env node
// The remote child of the composition tests (TestCompose*): a server on the
// official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2, low-level Server
// API), stateful Streamable HTTP at /mcp, which mcpchain reaches through a
// gateway (package proxy) mounted in the parent.
//
//   node remote-server.mjs 127.0.0.1:PORT
//
// Tools: shout (upper-cases text), sample (a sampling/createMessage round
// trip with the caller's client), grow (registers the tool late for every
// session and sends notifications/tools/list_changed to every session, so
// the gateway's shared connection hears of it whatever session called);
// resource remote://readme; prompt haiku.

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const obj = (properties, required = []) => ({ type: 'object', properties, required });
const tools = [
  { name: 'shout', description: 'Upper-cases text', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
  { name: 'sample', description: 'sampling/createMessage round trip', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
  { name: 'grow', description: 'Registers the tool late', inputSchema: obj({}) },
];
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const servers = new Set(); // the connected sessions' servers

function newServer() {
  const server = new Server(
    { name: 'ts-remote', version: '0.0.1' },
    { capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args = {} } = req.params;
    switch (name) {
      case 'shout':
        return text(String(args.text).toUpperCase());
      case 'sample': {
        const r = await server.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: String(args.text) } }], maxTokens: 100 },
          { relatedRequestId: extra.requestId },
        );
        return text(r.content.type === 'text' ? r.content.text : JSON.stringify(r.content));
      }
      case 'grow':
        if (!tools.some((t) => t.name === 'late')) {
          tools.push({ name: 'late', description: 'Registered at run time', inputSchema: obj({}) });
        }
        for (const s of servers) await s.sendToolListChanged().catch(() => {});
        return text('grown');
      case 'late':
        if (tools.some((t) => t.name === 'late')) return text('remote late');
      // fall through: not registered yet
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'remote://readme', name: 'readme', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const { uri } = req.params;
    if (uri === 'remote://readme') return { contents: [{ uri, mimeType: 'text/plain', text: 'served by TypeScript' }] };
    throw new McpError(-32002, 'Resource not found', { uri });
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'haiku', description: 'A haiku', arguments: [{ name: 'topic', required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== 'haiku') throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    return { messages: [{ role: 'user', content: { type: 'text', text: `A haiku on ${req.params.arguments?.topic}.` } }] };
  });
  return server;
}

const [host, port] = process.argv[2].split(':');
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
    const server = newServer();
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, t);
        servers.add(server);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        servers.delete(server);
      },
    });
    await server.connect(t);
    await t.handleRequest(req, res);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
});
httpServer.listen(Number(port), host, () => process.stderr.write(`remote-server listening on http://${host}:${port}/mcp\n`));
const stop = () => httpServer.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

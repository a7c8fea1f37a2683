#!/usr/bin/env node
// The peer tool set (see peer-common.mjs) on the official TypeScript SDK v1
// (@modelcontextprotocol/sdk 1.32.2), high-level McpServer API; HTTP is the
// stateful Streamable HTTP transport, one session per initialize.

import { randomUUID } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  answerText, cancelled, elicitParams, greeting, httpAddr, listen, samplingParams, slow,
} from './peer-common.mjs';

const text = (t) => ({ content: [{ type: 'text', text: t }] });

function newServer() {
  const server = new McpServer({ name: 'peer-ts-sdk-v1', version: '1.0.0' });
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)));
  server.registerTool('progress', { description: 'Three progress notifications' }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= 3; i++) {
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
      }
    }
    return text('done');
  });
  server.registerTool('slow', { description: 'Sleep ms, counts cancellations', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => text(await slow(ms, extra.signal)));
  server.registerTool('cancelled', { description: 'Cancelled slow calls' }, async () => text(cancelled()));
  server.registerTool('sample', { description: 'Sampling round', inputSchema: { text: z.string() } },
    async ({ text: t }, extra) => text(answerText(await server.server.createMessage(samplingParams(t), { relatedRequestId: extra.requestId }))));
  server.registerTool('elicit', { description: 'Elicitation round' },
    async (extra) => text(JSON.stringify(await server.server.elicitInput(elicitParams, { relatedRequestId: extra.requestId }))));
  server.registerResource('hello', 'file:///hello.txt', { mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello' }] }));
  server.registerResource('greeting', new ResourceTemplate('greeting://{name}', { list: undefined }), { mimeType: 'text/plain' },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: greeting(name) }] }));
  server.registerPrompt('greet', { description: 'Greet someone', argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }));
  return server;
}

const addr = httpAddr();
if (!addr) {
  await newServer().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  listen(addr, async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (sid) {
      const t = sessions.get(sid);
      if (!t) {
        res.writeHead(404).end();
        return;
      }
      await t.handleRequest(req, res);
      return;
    }
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, t),
      onsessionclosed: (id) => sessions.delete(id),
    });
    await newServer().connect(t);
    await t.handleRequest(req, res);
  });
}

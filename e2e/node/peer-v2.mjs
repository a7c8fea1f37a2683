#!/usr/bin/env node
// The peer tool set (see peer-common.mjs) on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0): one factory served by serveStdio, and
// over HTTP by createMcpHandler, the v2 entry (2026-07-28 per request, and
// 2025-era requests served statelessly, where a server's request to the
// client cannot be answered: the answer's POST reaches a new instance). At
// 2026-07-28 sample and elicit ask through input-required results, the
// 2025-era server requests being gone from that revision.
//
// With --grow (e2e/peers_2026_test.go) the server also marks tools/list
// cacheable for a minute (the SDK's cacheHints, sent as ttlMs/cacheScope at
// 2026-07-28) and has a tool grow {name} that adds a tool of that name: over
// stdio registered on the connection's instance, which sends
// notifications/tools/list_changed on the listen streams that asked for it;
// over HTTP (an instance per request) kept for every later instance and
// announced with the handler's notify.toolsChanged().

import {
  McpServer, ResourceTemplate, createMcpHandler, inputRequired, inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import {
  answerText, cancelled, elicitParams, greeting, httpAddr, listen, samplingParams, slow, webRequest, writeResponse,
} from './peer-common.mjs';

const text = (t) => ({ content: [{ type: 'text', text: t }] });

const grow = process.argv.includes('--grow');
const grown = [];
let handler;

function addGrown(server, name) {
  server.registerTool(name, { description: 'Added by grow' }, async () => text(name));
}

function newServer({ era } = {}) {
  const server = new McpServer({ name: 'peer-ts-sdk-v2', version: '1.0.0' },
    grow ? { cacheHints: { 'tools/list': { ttlMs: 60000, cacheScope: 'public' } } } : undefined);
  if (grow) {
    for (const name of grown) addGrown(server, name);
    server.registerTool('grow', { description: 'Add a tool', inputSchema: z.object({ name: z.string() }) },
      async ({ name }) => {
        grown.push(name);
        if (handler) handler.notify.toolsChanged();
        else addGrown(server, name);
        return text('grown');
      });
  }
  server.registerTool('add', { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => text(String(a + b)));
  server.registerTool('progress', { description: 'Three progress notifications' }, async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= 3; i++) {
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
      }
    }
    return text('done');
  });
  server.registerTool('slow', { description: 'Sleep ms, counts cancellations', inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }, ctx) => text(await slow(ms, ctx.mcpReq.signal)));
  server.registerTool('cancelled', { description: 'Cancelled slow calls' }, async () => text(cancelled()));
  server.registerTool('sample', { description: 'Sampling round', inputSchema: z.object({ text: z.string() }) },
    async ({ text: t }, ctx) => {
      if (era !== 'modern') return text(answerText(await ctx.mcpReq.requestSampling(samplingParams(t))));
      const r = inputResponse(ctx.mcpReq.inputResponses, 'sample');
      if (r.kind !== 'sampling') return inputRequired({ inputRequests: { sample: inputRequired.createMessage(samplingParams(t)) } });
      return text(answerText(r.result));
    });
  server.registerTool('elicit', { description: 'Elicitation round' }, async (ctx) => {
    if (era !== 'modern') return text(JSON.stringify(await ctx.mcpReq.elicitInput(elicitParams)));
    const r = inputResponse(ctx.mcpReq.inputResponses, 'answer');
    if (r.kind !== 'elicit') return inputRequired({ inputRequests: { answer: inputRequired.elicit(elicitParams) } });
    return text(JSON.stringify({ action: r.action, content: r.content }));
  });
  server.registerResource('hello', 'file:///hello.txt', { mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello' }] }));
  server.registerResource('greeting', new ResourceTemplate('greeting://{name}', { list: undefined }), { mimeType: 'text/plain' },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: greeting(name) }] }));
  server.registerPrompt('greet', { description: 'Greet someone', argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }));
  return server;
}

const addr = httpAddr();
if (!addr) {
  serveStdio(newServer, { onerror: (e) => process.stderr.write(`serveStdio: ${e}\n`) });
} else {
  handler = createMcpHandler(newServer, { onerror: (e) => process.stderr.write(`handler: ${e}\n`) });
  listen(addr, async (req, res) => writeResponse(res, await handler.fetch(await webRequest(req, res))));
}

#!/usr/bin/env node
// The peer tool set (see peer-common.mjs) on fastmcp (TypeScript) 4.20.16,
// over stdio or its httpStream transport (stateful Streamable HTTP).

import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { answerText, cancelled, elicitParams, greeting, httpAddr, samplingParams, slow } from './peer-common.mjs';

const server = new FastMCP({ name: 'peer-fastmcp', version: '1.0.0', ping: { enabled: false } });
// The session a tool runs in: the only one over stdio, by id over HTTP.
const sessionOf = (ctx) => server.sessions.find((s) => s.sessionId === ctx.sessionId) ?? server.sessions[0];

server.addTool({ name: 'add', description: 'Add two numbers', parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b) });
server.addTool({ name: 'progress', description: 'Three progress notifications', execute: async (_args, { reportProgress }) => {
  for (let i = 1; i <= 3; i++) await reportProgress({ progress: i, total: 3 });
  return 'done';
} });
server.addTool({ name: 'slow', description: 'Sleep ms, counts cancellations', parameters: z.object({ ms: z.number() }),
  execute: async ({ ms }, { signal }) => slow(ms, signal) });
server.addTool({ name: 'cancelled', description: 'Cancelled slow calls', execute: async () => cancelled() });
server.addTool({ name: 'sample', description: 'Sampling round', parameters: z.object({ text: z.string() }),
  execute: async ({ text }, ctx) => answerText(await sessionOf(ctx).requestSampling(samplingParams(text))) });
server.addTool({ name: 'elicit', description: 'Elicitation round', execute: async (_args, ctx) => JSON.stringify(await ctx.elicit(elicitParams)) });
server.addResource({ uri: 'file:///hello.txt', name: 'hello', mimeType: 'text/plain', load: async () => ({ text: 'hello' }) });
server.addResourceTemplate({ uriTemplate: 'greeting://{name}', name: 'greeting', mimeType: 'text/plain',
  arguments: [{ name: 'name', required: true }], load: async ({ name }) => ({ text: greeting(name) }) });
server.addPrompt({ name: 'greet', description: 'Greet someone', arguments: [{ name: 'name', required: true }],
  load: async ({ name }) => `Hello, ${name}!` });

const addr = httpAddr();
if (!addr) {
  await server.start({ transportType: 'stdio' });
} else {
  // fastmcp does not tell which port it bound: the caller picks a free one.
  const { port } = addr;
  await server.start({ transportType: 'httpStream', httpStream: { host: addr.host, port, endpoint: '/mcp' } });
  process.stdout.write(`listening http://${addr.host}:${port}/mcp\n`);
  const stop = async () => { await server.stop(); process.exit(0); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

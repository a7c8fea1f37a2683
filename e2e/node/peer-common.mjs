// What the peer servers (peer-v1.mjs, peer-v2.mjs, peer-fastmcp.mjs) share:
// the fixtures' texts, the record of cancelled calls, and the plumbing that
// serves one of them over stdio or HTTP. Each peer registers the same tool set
// with its own SDK, so e2e/peers_test.go runs the same assertions on all:
//
//   add {a,b}      the sum as text
//   progress       three progress notifications (1, 2, 3 of 3), then "done"
//   slow {ms}      sleeps; when its abort signal fires it counts a cancellation
//   cancelled      the number of slow calls whose abort signal fired, as text
//   sample {text}  asks the client to sample; returns the answer's text
//   elicit         asks the client for a form; returns the result as JSON
//   file:///hello.txt ("hello"), template greeting://{name}, prompt greet {name}
//
//   node peer-X.mjs                    stdio
//   node peer-X.mjs --http 127.0.0.1:0 HTTP; prints "listening http://HOST:PORT/mcp"

import http from 'node:http';

let cancelledCalls = 0;

/** The number of slow calls whose abort signal fired. */
export const cancelled = () => String(cancelledCalls);

/** Sleeps ms, or until signal aborts (counted as a cancellation). */
export function slow(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(`slept ${ms}ms`), ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      cancelledCalls++;
      process.stderr.write(`slow: abort signal (${cancelledCalls})\n`);
      resolve('cancelled');
    }, { once: true });
  });
}

export const greeting = (name) => `Hello, ${decodeURIComponent(name)}!`;
export const samplingParams = (text) => ({
  messages: [{ role: 'user', content: { type: 'text', text: String(text) } }],
  maxTokens: 100,
});
export const elicitParams = {
  mode: 'form',
  message: 'Answer?',
  requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
};
export const answerText = (r) => (r.content?.type === 'text' ? r.content.text : JSON.stringify(r.content));

/** The --http HOST:PORT argument, or undefined for stdio. */
export function httpAddr() {
  const i = process.argv.indexOf('--http');
  if (i < 0) return undefined;
  const [host, port] = process.argv[i + 1].split(':');
  return { host, port: Number(port) };
}

/** Serves handler(req, res) at addr and prints the URL once listening. */
export function listen(addr, handler) {
  const server = http.createServer(async (req, res) => {
    try {
      await handler(req, res);
    } catch (e) {
      process.stderr.write(`handler: ${e?.stack ?? e}\n`);
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  server.listen(addr.port, addr.host, () => {
    process.stdout.write(`listening http://${addr.host}:${server.address().port}/mcp\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return server;
}

/** A web-standard Request for a Node request, aborted when the client goes away. */
export async function webRequest(req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
    signal: ac.signal,
  });
}

/** Writes a web-standard Response to a Node response, streaming its body. */
export async function writeResponse(res, r) {
  res.writeHead(r.status, Object.fromEntries(r.headers));
  if (!r.body) {
    res.end();
    return;
  }
  const reader = r.body.getReader();
  res.on('close', () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // the client went away
  }
  res.end();
}

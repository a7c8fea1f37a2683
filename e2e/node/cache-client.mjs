#!/usr/bin/env node
// The caching hints (SEP-2549) as the official TypeScript SDK's client sees
// them; used by TestCacheHintsTypeScript.
//
//   node cache-client.mjs <url> <uri>...
//
// @modelcontextprotocol/client (2.4.0) pinned to revision 2026-07-28, whose
// response cache serves a result again without a request while its ttlMs
// lasts. Lists the tools and the prompts twice, reads each <uri> twice, and
// prints ONE JSON object: the negotiated revision, and for each list and
// read the ttlMs and cacheScope the first result carried.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, ...uris] = process.argv.slice(2);
const out = { protocolVersion: null, results: {}, error: null };
const watchdog = setTimeout(() => {
  out.error = 'watchdog: not done within 60 s';
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
}, 60000);

const client = new Client({ name: 'cache-client', version: '0.0.1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
const hint = (r) => ({ ttlMs: r.ttlMs ?? null, cacheScope: r.cacheScope ?? null });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  const first = await client.listTools();
  await client.listTools();
  out.results['tools/list'] = hint(first);
  const prompts = await client.listPrompts();
  await client.listPrompts();
  out.results['prompts/list'] = hint(prompts);
  for (const uri of uris) {
    const r = await client.readResource({ uri });
    await client.readResource({ uri });
    out.results[uri] = hint(r);
  }
} catch (e) {
  out.error = e instanceof Error ? e.message : String(e);
}
clearTimeout(watchdog);
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n');

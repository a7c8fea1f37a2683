#!/usr/bin/env node
// Calls examples/everything's visits tool a number of times from the official TypeScript SDK v2
// client (@modelcontextprotocol/client, pinned to revision 2026-07-28: no session), as one
// caller; used by TestVisitsPerCallerBehindBalancer.
//
//   node visits-client.mjs <url> <name|-> <calls>
//
// <name> is sent as "Authorization: Bearer <name>" on every request; "-" sends none (anonymous).
// Prints ONE JSON object: {protocolVersion, results: [{isError, text}], error}. It asserts
// nothing; the Go test judges the results.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, name, calls] = process.argv.slice(2);
const out = { protocolVersion: null, results: [], error: null };
const client = new Client({ name: 'visits-client', version: '0.0.1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
const headers = name === '-' ? {} : { Authorization: `Bearer ${name}` };
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  for (let i = 0; i < Number(calls); i++) {
    const r = await client.callTool({ name: 'visits', arguments: {} });
    out.results.push({
      isError: r.isError ?? false,
      text: (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(''),
    });
  }
} catch (e) {
  out.error = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

#!/usr/bin/env node
// Holds subscriptions/listen streams of the official TypeScript SDK v2 client
// (@modelcontextprotocol/client, pinned to revision 2026-07-28) on replica B while another client
// of it changes things on replica A; used by TestListenAcrossReplicasTSClient.
//
//   node listen-replicas-client.mjs <url of A> <url of B>
//
// alice and bob each listen on B for tools/list_changed and prompts/list_changed. alice, on A,
// calls `upgrade` (her own tool list changed: Server.ListChangedFor), then `touch` (prompts changed,
// for everyone), then `grow` (a tool added to A's server, for everyone). Prints ONE JSON object:
// {protocolVersion, honored, aliceTools, alicePrompts, bobTools, bobPrompts, bobToolsBeforePrompts,
// upgradeMs, growMs, error}: the notifications each listener heard; bobToolsBeforePrompts, bob's
// tools/list_changed count when he heard of the prompts (B sent alice's own change before it, on
// one ordered stream, so a count above 0 means bob heard alice's); upgradeMs and growMs, the time
// from the call's start to the notification on B. It asserts nothing; the Go test judges.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [urlA, urlB] = process.argv.slice(2);
const out = { protocolVersion: null, honored: null, aliceTools: 0, alicePrompts: 0, bobTools: 0, bobPrompts: 0, bobToolsBeforePrompts: null, upgradeMs: null, growMs: null, error: null };
const pin = { versionNegotiation: { mode: { pin: '2026-07-28' } } };
const connect = async (url, name, who) => {
  const c = new Client({ name, version: '0.0.1' }, pin);
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${who}` } } }));
  return c;
};

// counter counts a listener's notifications of one kind; until(n) resolves once it has n, or
// rejects after 10 s.
const counter = (who) => {
  const waiters = [];
  const c = {
    n: 0,
    hear() {
      c.n++;
      for (const w of waiters.splice(0)) {
        if (c.n >= w.n) w.resolve();
        else waiters.push(w);
      }
    },
    until(n) {
      if (c.n >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        waiters.push({ n, resolve });
        setTimeout(() => reject(new Error(`${who} heard ${c.n} list_changed, not ${n}, within 10 s`)), 10000).unref();
      });
    },
  };
  return c;
};

const clients = [];
const subs = [];
try {
  const aliceB = await connect(urlB, 'alice-listener', 'alice');
  const bobB = await connect(urlB, 'bob-listener', 'bob');
  const aliceA = await connect(urlA, 'alice-changer', 'alice');
  clients.push(aliceB, bobB, aliceA);
  out.protocolVersion = aliceB.getNegotiatedProtocolVersion?.() ?? null;

  const heard = {};
  for (const [who, c] of [['alice', aliceB], ['bob', bobB]]) {
    for (const kind of ['tools', 'prompts']) {
      const k = counter(`${who} (${kind})`);
      heard[`${who}${kind}`] = k;
      c.setNotificationHandler(`notifications/${kind}/list_changed`, () => k.hear());
    }
  }
  const sa = await aliceB.listen({ toolsListChanged: true, promptsListChanged: true });
  const sb = await bobB.listen({ toolsListChanged: true, promptsListChanged: true });
  subs.push(sa, sb);
  out.honored = sa.honoredFilter;

  let start = performance.now();
  await aliceA.callTool({ name: 'upgrade', arguments: {} });
  await heard.alicetools.until(1);
  out.upgradeMs = performance.now() - start;

  await aliceA.callTool({ name: 'touch', arguments: {} });
  await Promise.all([heard.aliceprompts.until(1), heard.bobprompts.until(1)]);
  out.bobToolsBeforePrompts = heard.bobtools.n;

  start = performance.now();
  await aliceA.callTool({ name: 'grow', arguments: {} });
  await Promise.all([heard.alicetools.until(2), heard.bobtools.until(1)]);
  out.growMs = performance.now() - start;
  out.aliceTools = heard.alicetools.n;
  out.alicePrompts = heard.aliceprompts.n;
  out.bobTools = heard.bobtools.n;
  out.bobPrompts = heard.bobprompts.n;
} catch (e) {
  out.error = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
}
for (const s of subs) await s.close().catch(() => {});
for (const c of clients) await c.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));

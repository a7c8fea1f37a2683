#!/usr/bin/env node
// An MCP client that signs in at an external identity provider through the
// official TypeScript SDK and calls a resource server (examples/resourceserver):
// the Go e2e test runs it with mockoidc as the provider.
//
//   RS_CLIENT_ID=… RS_CLIENT_SECRET=… RS_SCOPE='openid profile' node rs-client.mjs http://127.0.0.1:PORT/mcp
//
// The SDK does the OAuth work: the 401's WWW-Authenticate names the
// protected-resource metadata (RFC 9728), which names the provider; the SDK
// reads the provider's metadata (RFC 8414 / OpenID discovery), sends the browser
// to its authorization endpoint with PKCE and the resource indicator (RFC 8707),
// and exchanges the code. The provider has no dynamic registration, so the
// client is pre-registered: the OAuthClientProvider's clientInformation() returns
// its id and secret (client_secret_post). The "browser" follows redirects until
// the loopback redirect URI, where this script takes the code.
//
// Steps, each recorded (result or {error, name}) in ONE JSON object on stdout:
// firstConnect (must fail: no token) → finishAuth → connect → tools → whoami.
// Exit 0 unless the watchdog fired (2).

import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const serverUrl = process.argv[2];
if (!serverUrl) {
  process.stderr.write('usage: node rs-client.mjs <mcp-url>\n');
  process.exit(64);
}
const out = { serverUrl, steps: {}, browser: [], authorizationRequests: [], tokenHistory: [] };
const log = (...a) => process.stderr.write(`rs-client: ${a.join(' ')}\n`);
const errorOf = (e) => ({ error: String(e?.message ?? e), name: e?.constructor?.name ?? typeof e });
const watchdog = setTimeout(() => {
  out.watchdog = 'no end within 60 s';
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(2);
}, 60000);

let gotCode;
const codeArrived = new Promise((resolve) => (gotCode = resolve));
const listener = createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  if (u.pathname !== '/callback') {
    res.writeHead(404).end();
    return;
  }
  out.callback = Object.fromEntries(u.searchParams);
  res.writeHead(200, { 'content-type': 'text/plain' }).end('done');
  gotCode(u.searchParams);
});
await new Promise((r) => listener.listen(0, '127.0.0.1', r));
const redirectUrl = `http://127.0.0.1:${listener.address().port}/callback`;

// The browser: the provider signs the user in at once, so following the
// redirects reaches the redirect URI.
async function browse(url) {
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, { redirect: 'manual' });
    out.browser.push({ url: url.split('?')[0], status: res.status });
    await res.arrayBuffer();
    if (res.status < 300 || res.status >= 400) return;
    url = new URL(res.headers.get('location'), url).toString();
  }
  throw new Error('too many redirects');
}

const store = { tokens: undefined, verifier: undefined, discovery: undefined };
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: 'mcpchain e2e resource-server client', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post',
      scope: process.env.RS_SCOPE || 'openid' };
  },
  state() { return randomBytes(16).toString('base64url'); },
  // Pre-registered at the provider: no dynamic registration.
  clientInformation() {
    return { client_id: process.env.RS_CLIENT_ID, client_secret: process.env.RS_CLIENT_SECRET,
      token_endpoint_auth_method: 'client_secret_post', redirect_uris: [redirectUrl] };
  },
  saveClientInformation() { out.registered = true; },
  tokens() { return store.tokens; },
  saveTokens(t) {
    store.tokens = t;
    const p = String(t.access_token).split('.');
    let claims = null;
    try { claims = JSON.parse(Buffer.from(p[1], 'base64url').toString('utf8')); } catch {}
    out.tokenHistory.push({ token_type: t.token_type, accessTokenClaims: claims });
  },
  async redirectToAuthorization(u) {
    out.authorizationRequests.push({ endpoint: u.origin + u.pathname, ...Object.fromEntries(u.searchParams) });
    await browse(u.toString());
  },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
  saveDiscoveryState(s) { store.discovery = s; out.discovery = { authorizationServerUrl: s?.authorizationServerUrl,
    resourceMetadataUrl: s?.resourceMetadataUrl, resource: s?.resourceMetadata?.resource,
    authorizationServers: s?.resourceMetadata?.authorization_servers, issuer: s?.authorizationServerMetadata?.issuer }; },
  discoveryState() { return store.discovery; },
  invalidateCredentials(scope) { out.invalidated = [...(out.invalidated ?? []), scope]; if (scope === 'all' || scope === 'tokens') store.tokens = undefined; },
};

async function step(name, fn) {
  try {
    out.steps[name] = (await fn()) ?? { ok: true };
  } catch (e) {
    out.steps[name] = errorOf(e);
    log(`${name}:`, e?.stack ?? e);
  }
  return out.steps[name];
}

let client;
try {
  const first = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  await step('firstConnect', async () => {
    await new Client({ name: 'rs-e2e', version: '1.0.0' }).connect(first);
    return { connected: true };
  });
  await step('finishAuth', async () => {
    const params = await Promise.race([codeArrived, new Promise((_, rej) => setTimeout(() => rej(new Error('no code')), 20000))]);
    if (params.get('error')) throw new Error(`authorization error: ${params.get('error')}`);
    await first.finishAuth(params.get('code'));
    return { ok: true };
  });
  await step('connect', async () => {
    client = new Client({ name: 'rs-e2e', version: '1.0.0' });
    const t = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
    await client.connect(t);
    return { sessionId: t.sessionId ?? null };
  });
  if (out.steps.connect?.error === undefined) {
    await step('tools', async () => ({ names: (await client.listTools()).tools.map((t) => t.name) }));
    await step('whoami', async () => {
      const r = await client.callTool({ name: 'whoami', arguments: {} });
      return { isError: Boolean(r.isError), structuredContent: r.structuredContent, text: r.content?.[0]?.text };
    });
    await step('echo', async () => {
      const r = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      return { isError: Boolean(r.isError), text: r.content?.[0]?.text };
    });
  }
} catch (e) {
  out.fatal = errorOf(e);
  log('fatal:', e?.stack ?? e);
} finally {
  try { await client?.close(); } catch {}
  listener.close();
  clearTimeout(watchdog);
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(0);

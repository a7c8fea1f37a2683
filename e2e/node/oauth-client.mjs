#!/usr/bin/env node
// An MCP client that logs in with OAuth through the official TypeScript SDK,
// with no human: the Go e2e tests run it against examples/oauth.
//
//   node oauth-client.mjs http://127.0.0.1:PORT/mcp
//
// Env: OAUTH_CLIENT_AUTH = none (default) | client_secret_basic | client_secret_post,
// the token endpoint auth method the client registers with. OAUTH_CLIENT_METADATA_URL:
// the https URL of the client's ID metadata document (SEP-991), which the SDK then uses
// as its client_id instead of registering when the server advertises
// client_id_metadata_document_supported; OAUTH_CALLBACK_PORT: the loopback port of the
// redirect URI (that document lists it, so it must be known beforehand).
//
// The SDK does the OAuth work (its StreamableHTTPClientTransport with an
// OAuthClientProvider, and auth() from client/auth.js): discovery from the 401's
// WWW-Authenticate (RFC 9728, RFC 8414), dynamic client registration (RFC 7591),
// PKCE, the code exchange, refresh. What a person does in a browser is done by
// `browse`: it follows the redirects with a cookie jar, reads the consent page's
// form (hidden transaction and CSRF fields, set with a cookie) and POSTs Approve
// as a browser would, then follows the provider's redirects to the client's
// loopback redirect URI, where this script listens for the code.
//
// Steps, each recorded (result or {error, name}) in ONE JSON object on stdout:
//   connect (401 → the SDK registers and starts the authorization) → browser →
//   finishAuth (code → tokens) → connect again, tools/list, tools/call whoami →
//   refresh (auth() with the refresh token) → whoami with the new access token →
//   the spent refresh token again (must be refused) → whoami again (the login is
//   revoked by the reuse, so it must fail). Diagnostics go to stderr. Exit 0 unless
//   the watchdog fired (2).

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  auth,
  refreshAuthorization,
  discoverAuthorizationServerMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';

const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;
const TOTAL_TIMEOUT_MS = Number(process.env.MCP_CLIENT_TOTAL_TIMEOUT_MS ?? 60000);
const AUTH_METHOD = process.env.OAUTH_CLIENT_AUTH || 'none';

const serverUrl = process.argv[2];
if (!serverUrl) {
  process.stderr.write('usage: node oauth-client.mjs <mcp-url>\n');
  process.exit(64);
}

const out = { sdkVersion: SDK_VERSION, serverUrl, authMethod: AUTH_METHOD, steps: {}, browser: [] };
const log = (...a) => process.stderr.write(`oauth-client: ${a.join(' ')}\n`);
const errorOf = (e) => ({ error: String(e?.message ?? e), name: e?.constructor?.name ?? typeof e, code: e?.code });

const watchdog = setTimeout(() => {
  out.watchdog = `no end within ${TOTAL_TIMEOUT_MS} ms`;
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(2);
}, TOTAL_TIMEOUT_MS);

// --- The client's loopback redirect URI (RFC 8252 §7.3): the code arrives here. ---
let gotCode;
const codeArrived = new Promise((resolve) => (gotCode = resolve));
const listener = createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  if (u.pathname !== '/callback') {
    res.writeHead(404).end();
    return;
  }
  out.callback = Object.fromEntries(u.searchParams);
  res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  gotCode(u.searchParams);
});
await new Promise((r) => listener.listen(Number(process.env.OAUTH_CALLBACK_PORT || 0), '127.0.0.1', r));
const redirectUrl = `http://127.0.0.1:${listener.address().port}/callback`;

// --- The browser: cookies per host (ports share them, as in browsers), manual redirects. ---
const jar = new Map(); // hostname → Map(name → value)
function storeCookies(url, res) {
  const host = new URL(url).hostname;
  const cookies = jar.get(host) ?? new Map();
  for (const sc of res.headers.getSetCookie()) {
    const [pair, ...attrs] = sc.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attrs.some((a) => /^\s*max-age\s*=\s*(0|-\d+)\s*$/i.test(a));
    if (expired || value === '') cookies.delete(name);
    else cookies.set(name, value);
  }
  jar.set(host, cookies);
}
function cookieHeader(url) {
  const cookies = jar.get(new URL(url).hostname);
  return cookies && cookies.size ? [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
}
const unescape = (s) =>
  s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCharCode(parseInt(n, 16)))
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
function attrs(tag) {
  const m = {};
  for (const a of tag.matchAll(/\b([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    m[a[1].toLowerCase()] = unescape(a[2] ?? a[3] ?? a[4] ?? '');
  }
  return m;
}
// The consent form as a person sees it: its hidden fields, and the Approve button.
function consentForm(html) {
  const formTag = html.match(/<form\b[^>]*>/is);
  if (!formTag) return null;
  const form = attrs(formTag[0]);
  const fields = new URLSearchParams();
  let approve = false;
  for (const t of html.matchAll(/<(?:input|button)\b[^>]*>/gis)) {
    const a = attrs(t[0]);
    if ((a.type ?? '').toLowerCase() === 'hidden' && a.name) fields.set(a.name, a.value ?? '');
    else if (!approve && ((a.value ?? '').toLowerCase() === 'approve' || (a.id ?? '').toLowerCase() === 'approve')) {
      // The button the user clicks: a browser sends its name=value.
      if (a.name) fields.set(a.name, a.value ?? '');
      approve = true;
    }
  }
  if (!approve) return null;
  const title = html.match(/<title>([^<]*)<\/title>/i);
  return { action: form.action, method: (form.method ?? 'get').toLowerCase(), fields, title: title ? unescape(title[1]) : '' };
}

async function browse(startUrl) {
  let url = startUrl;
  let init = { method: 'GET' };
  for (let hop = 0; hop < 12; hop++) {
    if (init.method === 'GET' && url.startsWith(redirectUrl)) {
      // The last hop: the browser loads the client's redirect URI.
      const res = await fetch(url);
      out.browser.push({ method: 'GET', url: url.split('?')[0], status: res.status });
      await res.arrayBuffer();
      return;
    }
    const headers = { ...(init.headers ?? {}) };
    const cookie = cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    storeCookies(url, res);
    out.browser.push({ method: init.method, url: url.split('?')[0], status: res.status });
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location'), url).toString();
      init = { method: 'GET' };
      await res.arrayBuffer();
      continue;
    }
    const body = await res.text();
    if (res.status === 200 && init.method === 'GET') {
      const form = consentForm(body);
      if (!form) throw new Error(`page without an approve form at ${url}: ${body.slice(0, 300)}`);
      out.consent = { url: url.split('?')[0], title: form.title, fields: [...form.fields.keys()].sort(), method: form.method,
        cookies: [...(jar.get(new URL(url).hostname)?.keys() ?? [])].sort(), showsClientName: body.includes(CLIENT_NAME),
        clientHost: body.match(/id="client-host">[^<]*<strong>([^<]*)<\/strong>/)?.[1],
        showsRedirectHost: body.includes(new URL(redirectUrl).host) };
      const origin = new URL(url).origin;
      url = new URL(form.action ?? url, url).toString();
      init = { method: 'POST', body: form.fields.toString(), headers: {
        'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin' } };
      continue;
    }
    throw new Error(`${init.method} ${url} answered ${res.status}: ${body.slice(0, 300)}`);
  }
  throw new Error('too many redirects');
}

// --- The SDK's OAuthClientProvider, in memory. ---
const CLIENT_NAME = 'mcpchain e2e (TypeScript SDK)';
const store = { client: undefined, tokens: undefined, verifier: undefined, discovery: undefined };
let allowLogin = true;
out.tokenHistory = [];
const provider = {
  get redirectUrl() { return redirectUrl; },
  clientMetadataUrl: process.env.OAUTH_CLIENT_METADATA_URL || undefined,
  get clientMetadata() {
    return { client_name: CLIENT_NAME, redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: AUTH_METHOD };
  },
  state() {
    return randomBytes(16).toString('base64url');
  },
  clientInformation() { return store.client; },
  saveClientInformation(info) {
    store.client = info;
    out.registration = { client_id: info.client_id, token_endpoint_auth_method: info.token_endpoint_auth_method,
      hasSecret: Boolean(info.client_secret), client_name: info.client_name, redirect_uris: info.redirect_uris };
  },
  tokens() { return store.tokens; },
  saveTokens(tokens) {
    store.tokens = tokens;
    out.tokenHistory.push(describeTokens(tokens));
  },
  async redirectToAuthorization(authorizationUrl) {
    const params = Object.fromEntries(authorizationUrl.searchParams);
    out.authorizationRequests = [...(out.authorizationRequests ?? []), { endpoint: authorizationUrl.origin + authorizationUrl.pathname,
      ...params, code_challenge: params.code_challenge ? `present (${params.code_challenge.length})` : undefined }];
    if (!allowLogin) {
      log('a new login was requested; not logging in');
      return;
    }
    await browse(authorizationUrl.toString());
  },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
  saveDiscoveryState(s) { store.discovery = s; },
  discoveryState() { return store.discovery; },
  invalidateCredentials(scope) {
    out.invalidated = [...(out.invalidated ?? []), scope];
    if (scope === 'all' || scope === 'tokens') store.tokens = undefined;
    if (scope === 'all' || scope === 'client') store.client = undefined;
    if (scope === 'all' || scope === 'verifier') store.verifier = undefined;
  },
};

function jwtParts(tok) {
  const p = String(tok).split('.');
  if (p.length !== 3) return null;
  const dec = (s) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  try {
    return { header: dec(p[0]), claims: dec(p[1]) };
  } catch {
    return null;
  }
}
function describeTokens(t) {
  return { token_type: t.token_type, expires_in: t.expires_in, scope: t.scope, hasRefreshToken: Boolean(t.refresh_token),
    refreshTokenIsJWT: Boolean(t.refresh_token && jwtParts(t.refresh_token)), accessToken: jwtParts(t.access_token) };
}

async function step(name, fn) {
  try {
    out.steps[name] = (await fn()) ?? { ok: true };
  } catch (e) {
    out.steps[name] = errorOf(e);
    log(`${name}:`, e?.stack ?? e);
  }
  return out.steps[name];
}

async function connect() {
  const client = new Client({ name: 'mcpchain-e2e-oauth', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
}

async function whoami(client) {
  const res = await client.callTool({ name: 'whoami', arguments: {} });
  return { isError: Boolean(res.isError), structuredContent: res.structuredContent, text: res.content?.[0]?.text };
}

let session;
try {
  // 1. No token yet: the server answers 401, and the SDK discovers, registers and
  //    sends the browser to the authorization endpoint; connect then fails.
  const first = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  await step('firstConnect', async () => {
    const c = new Client({ name: 'mcpchain-e2e-oauth', version: '1.0.0' });
    await c.connect(first);
    return { connected: true };
  });
  // 2. The browser ended at our redirect URI with the code.
  await step('finishAuth', async () => {
    const params = await Promise.race([codeArrived, new Promise((_, rej) => setTimeout(() => rej(new Error('no code')), 20000))]);
    if (params.get('error')) throw new Error(`authorization error: ${params.get('error')}: ${params.get('error_description')}`);
    await first.finishAuth(params.get('code'));
    return { ok: true };
  });
  // 3. With the token: a session, tools, whoami.
  await step('connect', async () => {
    session = await connect();
    return { sessionId: session.transport.sessionId ?? null };
  });
  if (session) {
    await step('tools', async () => ({ names: (await session.client.listTools()).tools.map((t) => t.name) }));
    await step('whoami', () => whoami(session.client));
    // 4. Refresh: auth() with stored tokens uses the refresh token.
    const before = store.tokens;
    await step('refresh', async () => {
      const result = await auth(provider, { serverUrl });
      return { result, accessTokenChanged: store.tokens?.access_token !== before?.access_token,
        refreshTokenChanged: store.tokens?.refresh_token !== before?.refresh_token };
    });
    await step('whoamiAfterRefresh', () => whoami(session.client));
    // 5. The spent refresh token, replayed: refused, and the whole login revoked.
    await step('reuseOldRefreshToken', async () => {
      const as = store.discovery?.authorizationServerUrl ?? new URL(serverUrl).origin;
      const metadata = store.discovery?.authorizationServerMetadata ?? (await discoverAuthorizationServerMetadata(as));
      const tokens = await refreshAuthorization(as, { metadata, clientInformation: store.client,
        refreshToken: before.refresh_token, resource: new URL(serverUrl) });
      return { refused: false, tokens: describeTokens(tokens) };
    });
    allowLogin = false;
    await step('whoamiAfterReuse', () => whoami(session.client));
  }
} catch (e) {
  out.fatal = errorOf(e);
  log('fatal:', e?.stack ?? e);
} finally {
  try {
    await session?.client.close();
  } catch {}
  listener.close();
  clearTimeout(watchdog);
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(0);

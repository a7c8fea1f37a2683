// What the clients of the Discord server of e2e/discord_test.go share
// (toolsearch-client.mjs, codemode-client.mjs, aisdk-client.mjs): the
// stdio server's start, the official TypeScript SDK client's connection,
// and the one JSON object each prints.
//
// A target is a Streamable HTTP URL, or stdio:<command>: the e2e test
// binary, which serves the Discord server when started with
// TOOLSEARCH_STDIO_SERVE=1 in its environment (the test adds
// TOOLSEARCH_CODEMODE=1 for code mode, passed on with the rest).

/** The stdio server's command and environment, or null for a URL. */
export function stdioServer(target) {
  if (!target.startsWith('stdio:')) return null;
  return { command: target.slice('stdio:'.length), env: { ...process.env, TOOLSEARCH_STDIO_SERVE: '1' }, stderr: 'inherit' };
}

/**
 * Prints out (ONE JSON object) and exits 2 when the run is not done within
 * 150 s (the test waits 180); returns the function that prints it and
 * exits 0 once the run is done.
 */
export function printOnce(out) {
  const watchdog = setTimeout(() => {
    out.error = 'watchdog: not done within 150 s';
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(2));
  }, 150000);
  return () => {
    clearTimeout(watchdog);
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
  };
}

/**
 * Connects the official TypeScript SDK's client to target: v1 is
 * @modelcontextprotocol/sdk (1.32.2, revision 2025-11-25); v2 is
 * @modelcontextprotocol/client (2.4.0) pinned to revision 2026-07-28.
 * Returns the client and the negotiated revision (null when the SDK does
 * not tell it: v1 over stdio). The SDK checks the structuredContent of
 * each result against the tool's outputSchema.
 */
export async function connectSDK(sdk, target, name) {
  let Client, StreamableHTTPClientTransport, StdioClientTransport;
  if (sdk === 'v1') {
    ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
    ({ StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
    ({ StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js'));
  } else {
    ({ Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client'));
    ({ StdioClientTransport } = await import('@modelcontextprotocol/client/stdio'));
  }
  const options = {};
  // A stdio server started under the race detector on a loaded machine
  // may take long to answer the version probe (it loads Discord's
  // document first).
  if (sdk === 'v2') options.versionNegotiation = { mode: { pin: '2026-07-28' }, probe: { timeoutMs: 140000 } };
  const client = new Client({ name, version: '0.0.1' }, options);
  const stdio = stdioServer(target);
  const transport = stdio ? new StdioClientTransport(stdio) : new StreamableHTTPClientTransport(new URL(target));
  await client.connect(transport);
  const protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
  return { client, protocolVersion };
}

/** The text items of a tool result, joined. */
export const resultText = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

/** A message of a caught error. */
export const message = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

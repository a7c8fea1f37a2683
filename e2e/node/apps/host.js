// The host page of TestMCPAppInBrowser (apps_test.go): an MCP host as a
// web page. It connects to the Go server with the official TypeScript
// client, declaring the MCP Apps extension, finds the tool linked to a
// view, reads the view and renders it the way the extension asks a web
// host to: a sandbox proxy iframe on another origin, which loads the
// view in an inner iframe under the CSP built from the view's _meta.ui.
// ext-apps' AppBridge talks to the view (ui/initialize, tool input and
// result, the view's own tools/call, model context updates). Everything
// it learns goes to window.__host, which the Go test reads.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const state = (window.__host = { steps: [], modelContext: [], logs: [] });
const step = (s) => state.steps.push(s);

async function main() {
  const query = new URLSearchParams(location.search);
  const sandboxOrigin = query.get("sandbox");
  // The tool to call (default: the first one linked to a view that the
  // model may call) and its arguments.
  const toolName = query.get("tool");
  const args = JSON.parse(query.get("args") ?? '{"city":"Oslo"}');
  const hostInfo = { name: "e2e-web-host", version: "1.0.0" };
  const client = new Client(hostInfo, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  state.serverExtensions = client.getServerCapabilities()?.extensions ?? null;
  step("connected");

  // A client that does not declare the extension: the server's fallback.
  const plain = new Client({ name: "e2e-plain-client", version: "1.0.0" });
  await plain.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  state.plainTools = (await plain.listTools()).tools.map((t) => t.name);
  state.plainResources = (await plain.listResources()).resources.map((r) => r.uri);
  try {
    await plain.callTool({ name: "refresh", arguments: { city: "Oslo" } });
    state.plainRefresh = "called";
  } catch (e) {
    state.plainRefresh = { code: e.code ?? null, message: String(e.message) };
  }
  await plain.close();

  const { tools } = await client.listTools();
  state.tools = tools.map((t) => ({ name: t.name, view: getToolUiResourceUri(t) ?? null, appOnly: isToolVisibilityAppOnly(t) }));
  // What a model would be offered: the tools whose visibility includes it.
  state.modelTools = tools.filter((t) => !isToolVisibilityAppOnly(t)).map((t) => t.name);
  const tool = tools.find((t) => (toolName ? t.name === toolName : getToolUiResourceUri(t) && !isToolVisibilityAppOnly(t)));
  const uri = getToolUiResourceUri(tool);

  const { contents } = await client.readResource({ uri });
  const view = contents[0];
  state.view = { uri: view.uri, mimeType: view.mimeType, ui: view._meta?.ui ?? null, size: view.text.length };
  step("read view");

  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.setAttribute("allow", buildAllowAttribute(view._meta?.ui?.permissions));
  iframe.title = tool.title ?? tool.name;
  document.getElementById("frame").appendChild(iframe);
  state.allow = iframe.getAttribute("allow");

  const bridge = new AppBridge(client, hostInfo, { serverTools: {}, serverResources: {}, logging: {}, openLinks: {} }, {
    hostContext: { theme: "light", displayMode: "inline", platform: "web", locale: "en-GB", containerDimensions: { maxHeight: 640 } },
  });
  bridge.onsizechange = ({ height }) => {
    state.lastHeight = height;
    if (height != null) iframe.style.height = `${height}px`;
  };
  bridge.onupdatemodelcontext = async (params) => {
    state.modelContext.push(params);
    return {};
  };
  bridge.onloggingmessage = (params) => state.logs.push(params);
  const sandboxReady = new Promise((resolve) => (bridge.onsandboxready = resolve));
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.src = sandboxOrigin + "/sandbox.html";
  await sandboxReady;
  step("sandbox ready");
  await bridge.sendSandboxResourceReady({ html: view.text, csp: view._meta?.ui?.csp, permissions: view._meta?.ui?.permissions });
  await initialized;
  state.appInfo = bridge.getAppVersion() ?? null;
  step("view initialized");

  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: tool.name, arguments: args });
  state.toolResult = result;
  await bridge.sendToolResult(result);
  step("result sent");
}

main().catch((e) => {
  state.error = String(e?.stack ?? e);
});

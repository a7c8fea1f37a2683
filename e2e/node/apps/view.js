// The view of TestMCPAppInBrowser's app, built on ext-apps' App (the
// view-side SDK) and inlined into the HTML the Go server serves as
// ui://weather/view.html. It shows the tool's input and result, calls the
// app-only tool "refresh" through the host, probes the CSP the host built
// from the view's _meta.ui (a declared origin may be fetched, another may
// not), and reports what it rendered with ui/update-model-context.
import { App } from "@modelcontextprotocol/ext-apps";

const $ = (id) => document.getElementById(id);
const app = new App({ name: "weather-view", version: "1.0.0" }, {});
const done = {};
let input;

async function probe(url) {
  try {
    const r = await fetch(url);
    return "allowed " + (await r.text());
  } catch {
    return "blocked";
  }
}

async function finish() {
  const allowed = document.body.dataset.allowed;
  const blocked = document.body.dataset.blocked;
  const [a, b] = await Promise.all([probe(allowed), probe(blocked)]);
  $("csp").textContent = `declared origin: ${a}; other origin: ${b}`;
  const refreshed = await app.callServerTool({ name: "refresh", arguments: { city: input.city } });
  $("refresh").textContent = refreshed.content[0].text;
  await app.updateModelContext({
    content: [{ type: "text", text: ["city", "forecast", "refresh", "csp"].map((id) => $(id).textContent).join(" | ") }],
  });
}

app.ontoolinput = ({ arguments: args }) => {
  input = args;
  $("city").textContent = args.city;
};
app.ontoolresult = (result) => {
  const s = result.structuredContent;
  $("forecast").textContent = `${s.sky}, ${s.celsius} °C`;
  $("sky").className = s.sky;
  if (!done.result) {
    done.result = true;
    finish().catch((e) => app.sendLog({ level: "error", data: String(e) }));
  }
};
app.connect().catch((e) => console.error("connect", e));

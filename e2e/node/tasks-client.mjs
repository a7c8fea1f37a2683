#!/usr/bin/env node
// Tasks of revision 2025-11-25 through the official TypeScript SDK's
// client.experimental.tasks, used by e2e/tasks_test.go.
//
//   node tasks-client.mjs <url>     (Streamable HTTP, e.g. http://127.0.0.1:PORT/mcp)
//
// The server (tasks_test.go) has: report (optional task, sleeps), confirm
// (optional task, elicits), failing (optional task, isError result), slow
// (optional task, sleeps ms), required (required task) and plain (no task).
// Prints ONE JSON object on stdout; every step records its error as
// {error, code?}. It asserts nothing: the Go test does.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const TOTAL_TIMEOUT_MS = 60000;
const [url] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: node tasks-client.mjs <url>\n');
  process.exit(64);
}

const out = { elicitations: [], statusNotifications: [] };

function errInfo(e) {
  const r = { error: e instanceof Error ? e.message : String(e) };
  if (e && typeof e === 'object' && e.code !== undefined) r.code = e.code;
  return r;
}

async function step(fn) {
  try {
    return await fn();
  } catch (e) {
    return errInfo(e);
  }
}

// stream runs a callToolStream to its end and records each message.
async function stream(gen) {
  const msgs = [];
  for await (const m of gen) {
    if (m.type === 'error') msgs.push({ type: m.type, error: errInfo(m.error) });
    else if (m.type === 'result') msgs.push({ type: m.type, result: m.result });
    else msgs.push({ type: m.type, task: m.task });
  }
  return msgs;
}

let printed = false;
function emit(code) {
  if (printed) return;
  printed = true;
  process.stdout.write(JSON.stringify(out, null, 2) + '\n', () => process.exit(code));
}
const watchdog = setTimeout(() => {
  out.watchdog = `total timeout ${TOTAL_TIMEOUT_MS} ms exceeded`;
  emit(2);
}, TOTAL_TIMEOUT_MS);
watchdog.unref();

const client = new Client({ name: 'mcpchain-e2e-tasks', version: '0.0.1' }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  out.elicitations.push(req.params);
  return { action: 'accept', content: { ok: true } };
});
client.fallbackNotificationHandler = async (n) => {
  if (n.method === 'notifications/tasks/status') out.statusNotifications.push(n.params);
};
client.onerror = (e) => process.stderr.write(`tasks-client.mjs: ${e?.message ?? e}\n`);

async function main() {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  out.connect = await step(() => client.connect(transport));
  out.protocolVersion = transport.protocolVersion ?? null;
  out.tasksCapability = client.getServerCapabilities()?.tasks ?? null;
  const tools = await client.listTools();
  out.execution = Object.fromEntries(tools.tools.map((t) => [t.name, t.execution?.taskSupport ?? null]));

  const tasks = client.experimental.tasks;
  out.report = await step(() => stream(tasks.callToolStream({ name: 'report', arguments: { topic: 'tides' } })));
  out.confirm = await step(() => stream(tasks.callToolStream({ name: 'confirm', arguments: {} })));
  out.failing = await step(() => stream(tasks.callToolStream({ name: 'failing', arguments: {} })));

  // A long task: take its creation, then cancel it.
  out.slow = await step(async () => {
    const gen = tasks.callToolStream({ name: 'slow', arguments: { ms: 20000 } }, CallToolResultSchema, { task: { ttl: 60000 } });
    const first = await gen.next();
    await gen.return(undefined);
    const created = first.value?.task;
    const cancelled = await step(() => tasks.cancelTask(created.taskId));
    const after = await step(() => tasks.getTask(created.taskId));
    const again = await step(() => tasks.cancelTask(created.taskId));
    return { created, cancelled, after, again };
  });

  out.list = await step(() => tasks.listTasks());
  const reportId = out.report?.[0]?.task?.taskId;
  out.reportResult = await step(() => tasks.getTaskResult(reportId, CallToolResultSchema));
  out.reportTask = await step(() => tasks.getTask(reportId));
  out.unknown = await step(() => tasks.getTask('no-such-task'));
  // An ordinary call of a required tool: the server refuses it (the
  // SDK's own callTool would refuse before sending).
  out.requiredPlain = await step(() =>
    client.request({ method: 'tools/call', params: { name: 'required', arguments: {} } }, CallToolResultSchema));
  out.required = await step(() => stream(tasks.callToolStream({ name: 'required', arguments: {} })));
  out.plain = await step(() => stream(tasks.callToolStream({ name: 'plain', arguments: {} })));
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (e) {
  out.fatal = errInfo(e);
} finally {
  await step(() => client.close());
}
emit(code);

// session.mjs drives ply through the real @qwen-code/sdk in the scenarios
// of TestQwenSDKSession, as a TypeScript caller would.
//
// argv[2] is a JSON object: {"ply", "cwd", "env" as for query.mjs, and
// "scenario": "resume" | "controls" | "deny" | "mcp"}.
//
// stdout gets one JSON line per SDK message, each wrapped as
// {"query": n, "msg": ...}, and one {"test": name, ...} line per answer
// of a control method, so the Go side sees exactly what the SDK saw.
import { query, createSdkMcpServer, tool } from '@qwen-code/sdk';
import { z } from 'zod';

const cfg = JSON.parse(process.argv[2]);
const emit = (v) => process.stdout.write(JSON.stringify(v) + '\n');
const base = {
  pathToQwenExecutable: cfg.ply,
  cwd: cfg.cwd,
  env: cfg.env,
  logLevel: 'debug',
  stderr: (line) => process.stderr.write(line.endsWith('\n') ? line : line + '\n'),
};

// drain runs q to its end, emitting its messages as query n.
async function drain(q, n) {
  for await (const msg of q) emit({ query: n, msg });
  return q;
}

// resume: a session, then the same session resumed, then a fork of it.
async function resume() {
  const q1 = query({ prompt: 'first', options: { ...base, permissionMode: 'yolo' } });
  await drain(q1, 1);
  const id = q1.getSessionId();
  await q1.close();
  emit({ test: 'session', id });
  const q2 = query({ prompt: 'second', options: { ...base, permissionMode: 'yolo', resume: id } });
  await drain(q2, 2);
  await q2.close();
  const q3 = query({ prompt: 'third', options: { ...base, permissionMode: 'yolo', resume: id, forkSession: true } });
  await drain(q3, 3);
  await q3.close();
}

// A prompt stream the test feeds one message at a time.
function inbox() {
  const queue = [];
  let wake = null;
  let closed = false;
  return {
    push(text) {
      queue.push({ type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: text } });
      if (wake) wake();
    },
    close() {
      closed = true;
      if (wake) wake();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length) {
          yield queue.shift();
          continue;
        }
        if (closed) return;
        await new Promise((r) => (wake = r));
        wake = null;
      }
    },
  };
}

// controls: one query answered, each control method asked, then a second
// query interrupted.
async function controls() {
  const box = inbox();
  const q = query({ prompt: box, options: { ...base, permissionMode: 'yolo', effort: 'medium' } });
  const it = q[Symbol.asyncIterator]();
  const untilResult = async (n) => {
    for (;;) {
      const { value, done } = await it.next();
      if (done) return;
      emit({ query: n, msg: value });
      if (value.type === 'result') return;
    }
  };
  box.push('hi');
  await untilResult(1);
  emit({ test: 'initial_effort', value: q.getInitialEffortStatus() ?? null });
  emit({ test: 'supported_commands', value: await q.supportedCommands() });
  emit({ test: 'mcp_server_status', value: await q.mcpServerStatus() });
  emit({ test: 'get_context_usage', value: await q.getContextUsage() });
  emit({ test: 'set_effort', value: await q.setEffortStatus('high') });
  emit({ test: 'get_available_models', value: await q.getAvailableModels() });
  emit({ test: 'get_usage_info', value: await q.getUsageInfo() });
  emit({ test: 'continue_last_turn', value: await q.continueLastTurn() });
  box.push('wait a while');
  setTimeout(() => q.interrupt(), 1000);
  await untilResult(2);
  box.close();
  await q.close();
}

// deny: canUseTool denies with interrupt: true.
async function deny() {
  const q = query({
    prompt: 'run it',
    options: {
      ...base,
      permissionMode: 'default',
      canUseTool: async (toolName) => ({ behavior: 'deny', message: `stop at ${toolName}`, interrupt: true }),
    },
  });
  await drain(q, 1);
  await q.close();
}

// mcp: a tool of a server embedded in this process, called by the model.
async function mcp() {
  const calc = createSdkMcpServer({
    name: 'calc',
    tools: [
      tool('echo', 'Echoes its text', { text: z.string() }, async ({ text }) => {
        emit({ test: 'echo_called', text });
        return { content: [{ type: 'text', text: `echo: ${text}` }] };
      }),
    ],
  });
  const q = query({ prompt: 'echo ping', options: { ...base, permissionMode: 'yolo', mcpServers: { calc } } });
  await drain(q, 1);
  await q.close();
}

try {
  await { resume, controls, deny, mcp }[cfg.scenario]();
} catch (err) {
  process.stderr.write(`scenario failed: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
}

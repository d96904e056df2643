// Drives `ply --acp` with the official TypeScript ACP client: a session
// that reads and edits (permission granted) through the client's file
// system (fs/read_text_file, fs/write_text_file), a prompt cancelled
// mid-stream, then session/load of that session in a new process. Prints
// one JSON summary line; the Go test (acp_node_test.go) checks it.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";

const [ply, cwd] = process.argv.slice(2);

function start() {
  const child = spawn(ply, ["--acp"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, exited, stream };
}

// The client's file system: every read and write is recorded; a write
// is saved to the disk, as an editor saving the buffer would.
const files = { reads: [], writes: [] };

function app(updates, onUpdate) {
  return client()
    .onRequest("fs/read_text_file", ({ params }) => {
      files.reads.push(params.path);
      return { content: readFileSync(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      files.writes.push({ path: params.path, content: params.content });
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest("session/request_permission", ({ params }) => {
      updates.push({ asked: params.toolCall.toolCallId });
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
      if (onUpdate) onUpdate(params);
    });
}

const out = {};

// First process: read, edit, cancel.
{
  const updates = [];
  let cancelOn = null;
  const a = start();
  const ctxHolder = {};
  await app(updates, (n) => {
    if (cancelOn && n.sessionId === cancelOn && n.update.sessionUpdate === "agent_message_chunk") {
      const id = cancelOn;
      cancelOn = null;
      ctxHolder.ctx.notify("session/cancel", { sessionId: id });
    }
  }).connectWith(a.stream, async (ctx) => {
    ctxHolder.ctx = ctx;
    const init = await ctx.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    out.protocolVersion = init.protocolVersion;
    out.loadSession = init.agentCapabilities?.loadSession ?? false;
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
    out.sessionId = s.sessionId;
    out.mode = s.modes?.currentModeId;
    out.model = s.models?.currentModelId;
    out.options = (s.configOptions ?? []).map((o) => o.id);
    const r1 = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "fix notes.txt" }] });
    out.first = { stopReason: r1.stopReason, updates: updates.splice(0) };
    cancelOn = s.sessionId;
    const r2 = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "take your time" }] });
    out.second = { stopReason: r2.stopReason };
    updates.splice(0);
  });
  a.child.stdin.end();
  out.firstExit = await a.exited;
}

// Second process: load the session and see its conversation again.
{
  const updates = [];
  const b = start();
  await app(updates).connectWith(b.stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await ctx.request("session/load", { sessionId: out.sessionId, cwd, mcpServers: [] });
    out.loaded = { updates: updates.splice(0) };
  });
  b.child.stdin.end();
  out.secondExit = await b.exited;
}

out.files = files;
process.stdout.write(JSON.stringify(out) + "\n");

// query.mjs drives ply through the real @qwen-code/sdk package, as a
// TypeScript caller would. TestQwenSDK runs it with node from a directory
// whose node_modules holds the SDK, so the bare import below resolves.
//
// argv[2] is a JSON object: {"ply": path to the ply binary, "cwd": the
// workspace, "env": extra environment for ply, "prompt": the prompt}.
//
// stdout gets one JSON line per SDK message, plus one line of type
// "test_can_use_tool" per permission callback and a last one of type
// "test_session" with the SDK's session id, so the Go side sees exactly
// what the SDK saw. stderr gets the SDK's debug log (spawn arguments, the
// lines it writes) and ply's stderr, which the SDK forwards to it.
import { query } from '@qwen-code/sdk';

const cfg = JSON.parse(process.argv[2]);
const emit = (v) => process.stdout.write(JSON.stringify(v) + '\n');

const q = query({
  prompt: cfg.prompt,
  options: {
    pathToQwenExecutable: cfg.ply,
    cwd: cfg.cwd,
    env: cfg.env,
    permissionMode: 'default',
    logLevel: 'debug',
    stderr: (line) => process.stderr.write(line.endsWith('\n') ? line : line + '\n'),
    canUseTool: async (toolName, input) => {
      emit({ type: 'test_can_use_tool', tool_name: toolName, input });
      if (toolName === 'write_file') {
        return { behavior: 'deny', message: 'the test forbids writing files' };
      }
      if (toolName === 'run_shell_command') {
        // The callback sanitises the command: ply must run this one,
        // not the model's.
        return { behavior: 'allow', updatedInput: { ...input, command: 'echo allowed > allowed.txt' } };
      }
      return { behavior: 'deny', message: `the test did not expect ${toolName}` };
    },
  },
});

try {
  for await (const msg of q) {
    emit(msg);
  }
  // The id the SDK chose and passed as --session-id; the CLI must use it.
  emit({ type: 'test_session', session_id: q.getSessionId() });
} catch (err) {
  process.stderr.write(`query failed: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
} finally {
  await q.close();
}

// Package ide connects ply to the editor it runs in through the companion
// extension the user installed for Qwen Code or Gemini CLI (VS Code and
// its forks): the extension serves MCP over HTTP on a loopback port and
// writes a discovery file naming that port, the workspace folders open in
// the editor and a secret token.
//
// It owns: finding that file (the process-tree walk to the editor's
// process, the environment variables the extensions set, both families'
// directories and file names), refusing a file another user could have
// written and a working directory outside the editor's workspace, the
// connection (through the mcp package, to 127.0.0.1 only, the token in a
// header and nowhere else), the editor's latest context (open files, the
// active file's cursor and selection) and what of it changed since the
// model was last told, and the editor's diff view as a way to approve a
// file change (Approver).
//
// It must not touch the loop, the history or the UI: core asks it for the
// context block of each user query and wraps the entry's approver with
// it; the entry layers show its Status.
package ide

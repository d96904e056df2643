// Package mcp talks to Model Context Protocol servers and turns their tools
// into ply tools.
//
// It owns: parsing the "mcpServers" configuration (settings and the
// --mcp-config flag), starting stdio servers and connecting to HTTP ones in
// the background and in parallel, listing their tools, calling them, and
// converting their results into [tools.Result] values. A server that cannot
// start is reported as a [Failure] and skipped; the others keep working.
// It also reads servers' resources (the list_mcp_resources and
// read_mcp_resource tools), renders their prompts (offered as
// /mcp__server__prompt commands by the UI), and runs and stores the OAuth
// 2.1 login of HTTP servers that require one (Login, LoginDevice).
//
// It must not touch the UI, the scheduler or permission decisions: it never
// prints (server stderr goes to a logger and a small buffer quoted in error
// messages), never asks the user anything, and only exposes facts such as
// [Tool.Server] and [Tool.Trusted] for the permission layer to decide on.
//
// Tool names have the form mcp__<server>__<tool>, restricted to
// [A-Za-z0-9_-] and at most 64 characters (see [ToolName]).
//
// A server that dies during a session is not restarted: the failing call
// and every later call to that server return an MCP_SERVER_ERROR result
// that says so, quoting the end of its stderr when there is any. Restarting
// silently would hide a crashing server and could repeat side effects.
package mcp

package permission

import (
	"errors"
	"fmt"
	"strings"
)

// Names of the tools this package treats specially. They are the names the
// tools register under (tools.ReadFile.Name() and so on), or will.
const (
	ToolReadFile      = "read_file"
	ToolReadManyFiles = "read_many_files"
	ToolEdit          = "edit"
	ToolWriteFile     = "write_file"
	ToolShell         = "run_shell_command"
	ToolGrep          = "grep_search"
	ToolGlob          = "glob"
	ToolListDirectory = "list_directory"
	ToolWebFetch      = "web_fetch"
	ToolWebSearch     = "web_search"
	ToolTodoWrite     = "todo_write"
	ToolAgent         = "agent"
	// ToolExitPlanMode is the tool the model calls to present its plan; in
	// plan mode it is the one non-read-only call that is not denied.
	ToolExitPlanMode = "exit_plan_mode"
)

// mcpPrefix starts the name of every MCP tool: mcp__server__tool.
const mcpPrefix = "mcp__"

// aliases maps lower-cased tool names, as users of ply, Qwen Code, Gemini
// CLI and Claude Code write them, to ply's names.
var aliases = map[string]string{}

func init() {
	for name, alts := range map[string][]string{
		ToolReadFile:      {"read", "readfile", "readfiletool"},
		ToolReadManyFiles: {"readmanyfiles", "readmanyfilestool"},
		ToolEdit:          {"editfile", "edittool", "replace"},
		ToolWriteFile:     {"write", "writefile", "writefiletool"},
		ToolShell:         {"bash", "shell", "shelltool"},
		ToolGrep:          {"grep", "greptool", "searchfiles", "search_file_content"},
		ToolGlob:          {"globtool", "findfiles"},
		ToolListDirectory: {"ls", "listfiles", "listdirectory", "readfolder"},
		ToolWebFetch:      {"webfetch", "webfetchtool"},
		ToolWebSearch:     {"websearch", "websearchtool"},
		ToolTodoWrite:     {"todowrite"},
		ToolAgent:         {"task"},
		ToolExitPlanMode:  {"exitplanmode"},
	} {
		aliases[name] = name
		for _, a := range alts {
			aliases[a] = name
		}
	}
}

// CanonicalName returns ply's name for a tool name or alias ("Bash" →
// "run_shell_command"). Names it does not know (MCP tools, tools of
// extensions) are returned unchanged.
func CanonicalName(name string) string {
	if strings.HasPrefix(name, mcpPrefix) {
		return name // MCP names are case-sensitive and never aliases
	}
	if c, ok := aliases[strings.ToLower(name)]; ok {
		return c
	}
	return name
}

// Tool families: a path rule on one member applies to every member, since
// it is the file that the rule protects, not the tool.
var families = map[string]string{
	ToolReadFile:      "read",
	ToolReadManyFiles: "read",
	ToolGrep:          "read",
	ToolGlob:          "read",
	ToolListDirectory: "read",
	ToolEdit:          "write",
	ToolWriteFile:     "write",
}

// specKind is what a rule's parenthesised specifier describes.
type specKind uint8

const (
	specNone   specKind = iota // the whole tool (or MCP server)
	specShell                  // a shell command pattern
	specPath                   // a path pattern
	specDomain                 // a web_fetch domain
)

// Rule is one parsed permission rule. The zero Rule matches nothing.
type Rule struct {
	text   string
	tool   string // ply's tool name; for a server rule, "mcp__server"
	server bool   // every tool of the MCP server named by tool
	kind   specKind
	shell  *shellPattern
	path   *pathPattern
	domain string // lower case; "*.x.com" for subdomains
}

// String returns the rule as it was written, without surrounding space.
func (r Rule) String() string { return r.text }

// Tool returns the tool the rule is about, by ply's name; for a rule about a
// whole MCP server, the "mcp__server" prefix.
func (r Rule) Tool() string { return r.tool }

// RuleError reports a rule that does not parse.
type RuleError struct {
	Rule   string // the rule as written
	Source string // where it came from ("settings", "--allowed-tools"); may be empty
	Err    error  // why it does not parse
}

func (e *RuleError) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("permission rule %q from %s: %v", e.Rule, e.Source, e.Err)
	}
	return fmt.Sprintf("permission rule %q: %v", e.Rule, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// ParseRule parses one rule in the syntax of the package documentation. A
// failure is a *RuleError saying what is wrong.
func ParseRule(s string) (Rule, error) { return parseRule(s, false) }

// parseRule parses s; with legacyPrefix, a shell pattern without a * is a
// prefix, as Qwen Code's --core-tools and --exclude-tools read it.
func parseRule(s string, legacyPrefix bool) (Rule, error) {
	r, err := parseRuleText(strings.TrimSpace(s), legacyPrefix)
	if err != nil {
		return Rule{}, &RuleError{Rule: s, Err: err}
	}
	return r, nil
}

func parseRuleText(text string, legacyPrefix bool) (Rule, error) {
	if text == "" {
		return Rule{}, errors.New("empty rule")
	}
	name, spec, hasSpec := text, "", false
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return Rule{}, errors.New(`missing ")" at the end`)
		}
		name, spec, hasSpec = strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+1:len(text)-1]), true
	} else if strings.ContainsRune(text, ')') {
		return Rule{}, errors.New(`")" without "("`)
	}
	if name == "" {
		return Rule{}, errors.New("no tool name before the parenthesis")
	}
	if err := checkToolName(name); err != nil {
		return Rule{}, err
	}
	r := Rule{text: text, tool: CanonicalName(name)}
	if strings.HasPrefix(name, mcpPrefix) {
		rest := strings.TrimPrefix(name, mcpPrefix)
		server, tool, found := strings.Cut(rest, "__")
		switch {
		case server == "" || server == "*":
			return Rule{}, fmt.Errorf("%q names no MCP server (write mcp__server or mcp__server__tool)", name)
		case !found || tool == "*":
			r.tool, r.server = mcpPrefix+server, true
		case tool == "":
			return Rule{}, fmt.Errorf("%q names no tool after the server (write mcp__%s for all its tools)", name, server)
		}
	}
	if !hasSpec || spec == "*" {
		return r, nil
	}
	if spec == "" {
		return Rule{}, fmt.Errorf("empty parentheses; write %s alone to mean every call", name)
	}
	var err error
	switch {
	case r.server:
		err = fmt.Errorf("a rule for a whole MCP server takes no specifier")
	case r.tool == ToolShell:
		r.kind = specShell
		r.shell, err = parseShellPattern(spec, legacyPrefix)
	case families[r.tool] != "":
		r.kind = specPath
		r.path, err = parsePathPattern(spec)
	case r.tool == ToolWebFetch:
		r.kind = specDomain
		r.domain, err = parseDomain(spec)
	default:
		err = fmt.Errorf("tool %q takes no specifier: only shell, file and web_fetch rules do", name)
	}
	if err != nil {
		return Rule{}, err
	}
	return r, nil
}

// checkToolName rejects names no tool can have, which are mostly typos of
// the rule syntax ("Bash git", "Read[.env]").
func checkToolName(name string) error {
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		case c == '*' && strings.HasPrefix(name, mcpPrefix) && strings.HasSuffix(name, "__*"):
		default:
			return fmt.Errorf("%q is not a tool name: it contains %q", name, c)
		}
	}
	return nil
}

// parseDomain parses "domain:example.com" or "domain:*.example.com".
func parseDomain(spec string) (string, error) {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return "", fmt.Errorf("web_fetch rules take domain:HOST, not %q", spec)
	}
	host = strings.ToLower(strings.TrimSpace(host))
	bare := strings.TrimPrefix(host, "*.")
	if bare == "" {
		return "", errors.New(`no host given after "domain:"`)
	}
	for _, c := range bare {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == ':' || c > 127) {
			return "", fmt.Errorf("%q is not a host name (no scheme, path or wildcard other than a leading *.)", host)
		}
	}
	return host, nil
}

// matchDomain reports whether host matches a parsed domain.
func matchDomain(domain, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if sub, ok := strings.CutPrefix(domain, "*."); ok {
		return strings.HasSuffix(host, "."+sub)
	}
	return host == domain
}

// appliesTo reports whether r is about calls of the tool named name,
// before looking at the call's arguments.
func (r *Rule) appliesTo(name string) bool {
	switch {
	case r.tool == "":
		return false
	case r.server:
		return strings.HasPrefix(name, r.tool+"__")
	case r.kind == specPath:
		return name == r.tool || families[name] == families[r.tool]
	}
	return name == r.tool
}

package permission

import (
	"path"
	"strings"

	"github.com/plyhq/ply/internal/shell"
)

// readOnlyAlone reports whether a simple command is read-only taken by
// itself, in the directory the call runs in.
func (p *Policy) readOnlyAlone(ci *callInfo, sc shell.SimpleCommand) bool {
	cwd, ok := p.shellDir(ci)
	return ok && p.readOnlyAloneIn([]string{cwd}, sc)
}

// readOnlyAloneIn reports whether a simple command is read-only taken by
// itself in each of dirs (none: the directory is not known), so that "cd
// src && npm test" is covered by Bash(npm test). It fails closed on
// anything the rebuilt command could misrepresent: globs and tildes
// (whether they were quoted is no longer known), assignments and
// redirections.
func (p *Policy) readOnlyAloneIn(dirs []string, sc shell.SimpleCommand) bool {
	if len(dirs) == 0 || len(sc.Args) == 0 || len(sc.Env) > 0 || len(sc.Redirects) > 0 {
		return false
	}
	line, ok := quoteLine(sc.Args)
	if !ok {
		return false
	}
	for _, d := range dirs {
		if !shell.IsReadOnlyIn(line, p.ws.Roots(), d) {
			return false
		}
	}
	return true
}

// quoteLine rebuilds a command line from literal words; it refuses words
// with glob characters or a tilde, whose quoting is no longer known: the
// shell expands an unquoted ~/x, and quoting it here would make it a file
// of the working directory.
func quoteLine(words []string) (string, bool) {
	quoted := make([]string, len(words))
	for i, a := range words {
		if strings.ContainsAny(a, "*?[~") {
			return "", false
		}
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " "), true
}

// shellDir returns the directory a shell call runs in: its directory
// argument resolved inside the workspace, or the primary root.
func (p *Policy) shellDir(ci *callInfo) (string, bool) {
	if ci.args.Directory == "" {
		return p.ws.Root(), true
	}
	d, err := p.ws.Resolve(ci.args.Directory)
	return d, err == nil
}

// shellReadOnly reports whether a shell call only reads inside the
// workspace, so that the approval modes may run it without asking.
func (p *Policy) shellReadOnly(ci *callInfo) bool {
	cwd, ok := p.shellDir(ci)
	return ok && shell.IsReadOnlyIn(ci.args.Command, p.ws.Roots(), cwd)
}

// shellInfo is what deny, ask and allow rules need to know about a shell
// command, computed once per call.
type shellInfo struct {
	views  [][]string // see catchViews
	opaque string     // why the command is opaque (shell.Opaque), or ""
}

func (ci *callInfo) shellInfo() *shellInfo {
	if ci.shell == nil {
		views, complete := catchViews(ci.args.Command)
		ci.shell = &shellInfo{views: views}
		if reason, ok := shell.Opaque(ci.args.Command); ok {
			ci.shell.opaque = reason
		} else if !complete {
			ci.shell.opaque = "too many commands nested in wrappers to check them all"
		}
	}
	return ci.shell
}

// opaqueNote explains, for a verdict's reason, why a rule about one
// program caught a command that may run any.
func (ci *callInfo) opaqueNote() string {
	if ci.shell == nil || ci.shell.opaque == "" {
		return ""
	}
	return " (" + ci.shell.opaque + ": what it runs cannot be known before it runs, so every rule about commands applies to it)"
}

// covers reports whether an allow pattern covers one simple command of a
// call. A git command that changes which configuration or repository git
// uses (-c, --config-env, --exec-path, -C, --git-dir, --work-tree) or
// writes configuration (git config without a reading option) is covered
// only by a pattern that names that option or "config": -c alias.x='!cmd'
// runs any program, so Bash(git *) is not taken to mean it.
func (sp *shellPattern) covers(sc shell.SimpleCommand, words []string) bool {
	if !sp.match(words) {
		return false
	}
	if len(sc.Args) == 0 || path.Base(sc.Args[0]) != "git" {
		return true
	}
	for _, risk := range gitRisks(sc.Args[1:]) {
		if !sp.names(risk) {
			return false
		}
	}
	return true
}

// names reports whether a word of the pattern starts with lit.
func (sp *shellPattern) names(lit string) bool {
	for _, w := range sp.words {
		if !w.anyWords && strings.HasPrefix(w.parts[0], lit) {
			return true
		}
	}
	return false
}

// gitRisks returns the options of a git command line (program excluded)
// that change where git reads configuration or which repository it opens,
// and "config" for a configuration write.
func gitRisks(args []string) []string {
	var risks []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-C":
			risks = append(risks, a)
			i++
		case strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-C"):
			risks = append(risks, a[:2])
		case hasAnyPrefix(a, "--config-env", "--exec-path", "--git-dir", "--work-tree"):
			name, _, hasValue := strings.Cut(a, "=")
			risks = append(risks, name)
			if !hasValue && name != "--exec-path" {
				i++
			}
		case strings.HasPrefix(a, "-"):
		default:
			if a == "config" {
				line, ok := quoteLine(append([]string{"git"}, args[i:]...))
				if !ok || !shell.IsReadOnly(line) {
					risks = append(risks, "config")
				}
			}
			return risks
		}
	}
	return risks
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

package tools

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// refusalMarks are the messages with which programs report what the
// sandbox refused them: Landlock and the socket filter answer EACCES,
// EPERM or EROFS, and a refused socket surfaces as a failed lookup or
// connection.
var refusalMarks = []string{
	"Permission denied", "Operation not permitted", "Read-only file system",
	"EACCES", "EPERM", "EROFS", "permission denied", "operation not permitted",
	"Temporary failure in name resolution", "Could not resolve host", "Name or service not known",
	"Network is unreachable", "socket:", "dial tcp", "dial udp", "connect:", "/dev/tcp/",
}

// refusedPath finds absolute paths in a line of output.
var refusedPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s'"‘“(=:])(/[^\s'"’”):,]+)`) })

// sandboxRefusalNote returns the note added to a failed command's result
// when it ran in the workspace sandbox and its output shows the sandbox
// refused something: what it refused, as far as the output tells, what the
// sandbox allows, and how to ask to run outside it. "" when the output
// shows no refusal.
func sandboxRefusalNote(output string, writable []string) string {
	var lines, paths []string
	for line := range strings.SplitSeq(output, "\n") {
		if !slices.ContainsFunc(refusalMarks, func(m string) bool { return strings.Contains(line, m) }) {
			continue
		}
		if len(lines) < 3 {
			lines = append(lines, strings.TrimSpace(truncateRunes(line, 200)))
		}
		for _, m := range refusedPath().FindAllStringSubmatch(line, -1) {
			p := filepath.Clean(m[1])
			if !slices.Contains(paths, p) && !slices.ContainsFunc(writable, func(w string) bool { return pathWithin(w, p) }) {
				paths = append(paths, p)
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Sandbox: the command ran in auto mode's sandbox, and the output shows it refused something (")
	b.WriteString(strings.Join(lines, " | "))
	b.WriteString(").")
	if len(paths) > 0 {
		if len(paths) > 5 {
			paths = paths[:5]
		}
		fmt.Fprintf(&b, " Outside what the sandbox allows: %s.", strings.Join(paths, ", "))
	}
	fmt.Fprintf(&b, " In the sandbox a command may write only below %s and its own $TMPDIR, reads nothing of the home directory but toolchains and module caches, and has no network.", strings.Join(writable, ", "))
	b.WriteString(" If the command needs more and the task needs the command, call run_shell_command again with run_outside_sandbox: true and a one-line justification: the user is asked (a run without anyone to ask refuses it).")
	return b.String()
}

// pathWithin reports whether p is dir or below it.
func pathWithin(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

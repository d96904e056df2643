package sysprompt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/plyhq/ply/internal/safefile"
)

// InstructionNames are the instruction files read in each directory, in
// this order: ply's own first, then those other agents' users already
// keep.
var InstructionNames = []string{"PLY.md", "AGENTS.md", "QWEN.md", "CLAUDE.md"}

// MaxInstructionBytes caps all instruction files together; what does not
// fit is cut with a note, so a huge file cannot crowd out the work.
const MaxInstructionBytes = 32 << 10

// Instruction is one loaded file.
type Instruction struct {
	Path    string
	Content string
}

// LoadInstructions reads the user's global file (home/PLY.md), then the
// instruction files of every directory from the project root down to cwd,
// root first, so that the nearest file comes last and weighs most. The
// project root is the nearest ancestor of cwd holding .git, or cwd.
//
// The project's files are read only when their real path is a regular
// file inside the project, the user's only inside home or the user's home
// directory: a repository's AGENTS.md may be a link to /proc/self/environ,
// a key, a named pipe or a device. Each file passed over for that is named
// on warn (nil for none) with the reason; missing files are not.
func LoadInstructions(home, cwd string, warn io.Writer) []Instruction {
	l := loader{seen: map[string]bool{}, warn: warn}
	if home != "" {
		roots := []string{home}
		if h, err := os.UserHomeDir(); err == nil {
			roots = append(roots, h)
		}
		l.add(filepath.Join(home, "PLY.md"), "ply's home or your home directory", roots)
	}
	dirs := dirsFromRoot(cwd)
	project := []string{dirs[0]}
	for _, dir := range dirs {
		for _, n := range InstructionNames {
			l.add(filepath.Join(dir, n), "the project", project)
		}
	}
	return capInstructions(l.out)
}

// loader collects instruction files, each real file once, until the cap.
type loader struct {
	out   []Instruction
	total int
	seen  map[string]bool
	warn  io.Writer
}

func (l *loader) add(p, where string, roots []string) {
	if l.total >= MaxInstructionBytes {
		return // capInstructions would drop it
	}
	f, err := safefile.ReadWithin(p, MaxInstructionBytes+1, where, roots...)
	var skip *safefile.SkipError
	if errors.As(err, &skip) && l.warn != nil {
		fmt.Fprintf(l.warn, "ply: warning: instruction file %v\n", skip)
	}
	if err != nil || l.seen[f.Real] || len(bytes.TrimSpace(f.Data)) == 0 {
		return
	}
	l.seen[f.Real] = true
	l.total += len(f.Data)
	l.out = append(l.out, Instruction{Path: p, Content: string(f.Data)})
}

// dirsFromRoot lists the project root and each directory below it down to
// cwd.
func dirsFromRoot(cwd string) []string {
	var chain []string
	root := ""
	for d := cwd; ; {
		chain = append(chain, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if root == "" {
		return []string{cwd}
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}

func capInstructions(in []Instruction) []Instruction {
	left := MaxInstructionBytes
	var out []Instruction
	for _, ins := range in {
		if left <= 0 {
			break
		}
		if len(ins.Content) > left {
			ins.Content = ins.Content[:left] + "\n[... cut: instruction files are capped at 32 KiB in all ...]"
		}
		left -= len(ins.Content)
		out = append(out, ins)
	}
	return out
}

// renderInstructions formats the files for the system prompt.
func renderInstructions(ins []Instruction) string {
	if len(ins) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n# Instructions from the user and the project\nFollow these; when they conflict, later files (nearer the working directory) win.\n")
	for _, i := range ins {
		b.WriteString("\n## " + i.Path + "\n\n")
		b.WriteString(strings.TrimSpace(i.Content))
		b.WriteString("\n")
	}
	return b.String()
}

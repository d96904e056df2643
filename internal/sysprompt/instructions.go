package sysprompt

import (
	"os"
	"path/filepath"
	"strings"
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
func LoadInstructions(home, cwd string) []Instruction {
	var out []Instruction
	seen := map[string]bool{}
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] {
			return
		}
		fi, err := os.Stat(real)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		b, err := os.ReadFile(real)
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		seen[real] = true
		out = append(out, Instruction{Path: p, Content: string(b)})
	}
	if home != "" {
		add(filepath.Join(home, "PLY.md"))
	}
	for _, dir := range dirsFromRoot(cwd) {
		for _, n := range InstructionNames {
			add(filepath.Join(dir, n))
		}
	}
	return capInstructions(out)
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

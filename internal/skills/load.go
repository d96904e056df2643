package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Root is a folder holding skill folders, and where it comes from.
type Root struct {
	Dir    string
	Source string // "user" or "project"
	// Confine, when set, is a folder every skill folder of this root
	// must lie in once links are followed: a project's skill cannot be a
	// link that would open, say, the home directory to the read tools.
	Confine string
}

// ProjectDirs are the project folders searched for skills, in order:
// ply's own, then Claude Code's and Qwen Code's, for teams that keep
// their skills there already.
var ProjectDirs = []string{".ply/skills", ".claude/skills", ".qwen/skills"}

// Roots returns where skills are looked for: home/skills (home is ply's
// home, $PLY_HOME or ~/.ply), then the project's folders under workspace,
// but only when the workspace is trusted: a skill's instructions reach
// the model and its allowed-tools are allowed unasked, as a project's
// settings would be. An earlier root wins a name both have.
func Roots(home, workspace string, trusted bool) []Root {
	var out []Root
	if home != "" {
		out = append(out, Root{Dir: filepath.Join(home, "skills"), Source: "user"})
	}
	if trusted && workspace != "" {
		for _, d := range ProjectDirs {
			out = append(out, Root{Dir: filepath.Join(workspace, filepath.FromSlash(d)), Source: "project", Confine: workspace})
		}
	}
	return out
}

// Load finds the skills under roots: each folder directly in a root that
// holds a SKILL.md. Missing roots are fine. A skill that does not parse
// is left out and reported (a *ParseError), as is one whose name an
// earlier skill took. The skills come sorted by name.
func Load(roots []Root) ([]Skill, []error) {
	var out []Skill
	var errs []error
	byName := make(map[string]string)
	for _, r := range roots {
		entries, err := os.ReadDir(r.Dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("reading skills in %s: %w", r.Dir, err))
			}
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(r.Dir, e.Name())
			path := filepath.Join(dir, FileName)
			// A linked skill folder is a folder too.
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
			if r.Confine != "" && !within(r.Confine, dir) {
				errs = append(errs, fmt.Errorf("skill folder %s is left out: it leads outside %s", dir, r.Confine))
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("reading skill %s: %w", path, err))
				}
				continue
			}
			s, err := Parse(path, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if first, ok := byName[s.Name]; ok {
				errs = append(errs, fmt.Errorf("skill %q in %s is left out: %s has that name already", s.Name, path, first))
				continue
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				errs = append(errs, fmt.Errorf("skill %s: %w", path, err))
				continue
			}

			s.Dir, s.Path, s.Source = abs, filepath.Join(abs, FileName), r.Source
			byName[s.Name] = path
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// within reports whether dir, links followed, lies in root (links
// followed).
func within(root, dir string) bool {
	r, err1 := filepath.EvalSymlinks(root)
	d, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(r, d)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

package permission

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/shell"
)

// workspaceScope is the word that starts a shell pattern limited to
// paths inside the workspace: Bash(@workspace rm:*).
const workspaceScope = "@workspace"

// cutWorkspaceScope removes a leading @workspace word from a shell rule's
// specifier.
func cutWorkspaceScope(spec string) (rest string, scoped bool) {
	rest, ok := strings.CutPrefix(spec, workspaceScope)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return spec, false
	}
	return strings.TrimSpace(rest), true
}

// Programs whose "allow always" is limited to the workspace: they delete
// or overwrite the files they name, and only inside the workspace can a
// checkpoint restore them.
var overwriters = map[string]bool{
	"rm": true, "rmdir": true, "unlink": true, "mv": true, "cp": true, "dd": true,
	"truncate": true, "shred": true, "ln": true, "link": true, "install": true,
	"chmod": true, "chown": true, "chgrp": true, "chattr": true, "setfacl": true,
	"rsync": true, "tee": true, "touch": true, "patch": true, "sed": true,
	"tar": true, "unzip": true, "find": true, "srm": true, "wipe": true,
}

// gitOverwriters are git's subcommands that discard or overwrite files
// of the work tree.
var gitOverwriters = map[string]bool{
	"clean": true, "reset": true, "checkout": true, "restore": true, "rm": true,
	"mv": true, "stash": true, "switch": true, "apply": true, "am": true,
}

// overwrites reports whether "allow always" for sc should be limited to
// the workspace.
func overwrites(sc shell.SimpleCommand) bool {
	if len(sc.Args) == 0 {
		return false
	}
	prog := path.Base(sc.Args[0])
	if prog == "git" {
		return len(sc.Args) > 1 && gitOverwriters[sc.Args[1]]
	}
	return overwriters[prog]
}

// operandsInside reports whether every path a simple command may name
// (shell.PathOperands, the value after = of words like of=x, and its
// redirections) is a literal path strictly inside a workspace root,
// outside any .git directory, as written and with links followed, when
// relative paths are relative to dir. Anything it cannot know — a glob,
// a tilde — makes it false.
func (p *Policy) operandsInside(sc shell.SimpleCommand, dir string) bool {
	words := shell.PathOperands(sc.Args)
	for _, r := range sc.Redirects {
		if t, ok := redirectTarget(r); ok {
			words = append(words, t)
		}
	}
	for _, w := range words {
		candidates := []string{w}
		if _, v, ok := strings.Cut(w, "="); ok {
			candidates = append(candidates, v)
		}
		for _, c := range candidates {
			if !p.pathInside(c, dir) {
				return false
			}
		}
	}
	return true
}

// pathInside reports whether the literal word w names a path strictly
// inside a workspace root and outside .git, before and after following
// links.
func (p *Policy) pathInside(w, dir string) bool {
	if w == "" || strings.ContainsAny(w, "*?[~$`") {
		return false
	}
	abs := w
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	abs = filepath.Clean(abs)
	real, err := followLinks(abs)
	if err != nil {
		return false
	}
	return p.strictlyInside(abs) && p.strictlyInside(real)
}

func (p *Policy) strictlyInside(abs string) bool {
	return slices.ContainsFunc(p.ws.Roots(), func(root string) bool {
		rel, ok := relWithin(root, abs)
		return ok && rel != "" && !inGitDir(rel)
	})
}

// scopedDesc describes a scoped session rule for the dialog.
func scopedDesc(prefix string) string {
	return "`" + prefix + "` with paths inside the workspace"
}

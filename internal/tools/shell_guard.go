package tools

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A command in the workspace sandbox may write anywhere in the workspace:
// Landlock cannot take a subdirectory out of a writable tree. Some files
// there act outside the sandbox later: git runs .git/hooks and obeys
// .git/config (core.hooksPath, core.fsmonitor) when the user runs it, and
// ply and other agents load project settings, hooks and MCP servers at
// their next start. The shell keeps them as they were: it records them
// before such a command and puts back whatever the command changed.

// UNFINISHED: a process the command leaves running (a foreground command's
// own background child) can still change these files after restore has
// run, and other files agents load (AGENTS.md, .envrc, skills, custom
// commands) are not guarded: ply rewind restores those, not this check.

// guardedFiles and guardedDirs are those files, relative to a root; a
// guarded directory's regular files are kept, and files added to it are
// removed.
var (
	guardedFiles = []string{
		".git/config", ".mcp.json",
		".ply/settings.json", ".claude/settings.json", ".claude/settings.local.json",
		".qwen/settings.json", ".gemini/settings.json",
	}
	guardedDirs = []string{".git/hooks"}
)

// guardLimit bounds the size of a guarded file that is recorded; a larger
// one is left to the checkpoint.
const guardLimit = 1 << 20

// guardedFile is one guarded file as it was: absent when content is nil.
type guardedFile struct {
	content []byte
	mode    fs.FileMode
}

// guardSnapshot is what the guarded paths of the roots held.
type guardSnapshot struct {
	roots []string
	files map[string]guardedFile
}

// snapshotGuarded records the guarded files of roots.
func snapshotGuarded(roots []string) *guardSnapshot {
	g := &guardSnapshot{roots: roots, files: map[string]guardedFile{}}
	for _, p := range guardedPaths(roots) {
		g.files[p] = readGuarded(p)
	}
	return g
}

// guardedPaths lists the guarded files of roots as they are now: the
// fixed ones, and the regular files in the guarded directories.
func guardedPaths(roots []string) []string {
	var out []string
	for _, root := range roots {
		for _, f := range guardedFiles {
			out = append(out, filepath.Join(root, f))
		}
		for _, d := range guardedDirs {
			entries, _ := os.ReadDir(filepath.Join(root, d))
			for _, e := range entries {
				out = append(out, filepath.Join(root, d, e.Name()))
			}
		}
	}
	return out
}

// readGuarded reads p without following a link at its end; a link, a
// directory or a file over the limit reads as absent with the mode that
// marks it as such.
func readGuarded(p string) guardedFile {
	info, err := os.Lstat(p)
	if err != nil {
		return guardedFile{}
	}
	if !info.Mode().IsRegular() || info.Size() > guardLimit {
		return guardedFile{mode: info.Mode()}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return guardedFile{mode: info.Mode()}
	}
	if b == nil {
		b = []byte{}
	}
	return guardedFile{content: b, mode: info.Mode()}
}

// restore puts back every guarded file that changed since the snapshot
// and returns a note naming them for the command's result ("" when none
// changed).
func (g *guardSnapshot) restore() string {
	var put, failed []string
	paths := guardedPaths(g.roots)
	for p := range g.files {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		was, now := g.files[p], readGuarded(p)
		if bytes.Equal(was.content, now.content) && (was.content == nil) == (now.content == nil) && was.mode == now.mode {
			continue
		}
		if err := putBack(g.roots, p, was); err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		put = append(put, p)
	}
	var b strings.Builder
	if len(put) > 0 {
		fmt.Fprintf(&b, "\nSandbox: the command changed %s, which git or an agent would act on outside the sandbox; ply put back what was there. Change them only with the user's approval.", strings.Join(put, ", "))
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\nSandbox: the command changed %s, and ply could not put it back: the user must review it.", strings.Join(failed, ", "))
	}
	return b.String()
}

// putBack makes p hold was again: removed when it was absent, rewritten
// when it was a file. It refuses when a directory between its root and
// it is no longer a plain directory, so that nothing is written through a
// link.
func putBack(roots []string, p string, was guardedFile) error {
	for d := filepath.Dir(p); !slices.Contains(roots, d) && d != filepath.Dir(d); d = filepath.Dir(d) {
		if info, err := os.Lstat(d); err == nil && !info.IsDir() {
			return fmt.Errorf("%s is no longer a directory", d)
		}
	}
	if info, err := os.Lstat(p); err == nil && (info.IsDir() && was.content != nil) {
		return fmt.Errorf("%s is now a directory", p)
	}
	if was.content == nil && was.mode != 0 {
		return fmt.Errorf("it was not a regular file ply could record")
	}
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		return err
	}
	if was.content == nil {
		return nil
	}
	return os.WriteFile(p, was.content, was.mode.Perm())
}

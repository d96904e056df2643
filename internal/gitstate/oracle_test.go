package gitstate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// repo is a scratch repository the tests change with git and with plain
// file writes, then read both ways.
type repo struct {
	t   *testing.T
	dir string
	env []string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	r := &repo{t: t, dir: filepath.Join(t.TempDir(), "work"), env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
	}}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) gitIn(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *repo) git(args ...string) string { r.t.Helper(); return r.gitIn(r.dir, args...) }

func (r *repo) write(name, data string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
}

// want is git's own answer: the snapshot's commands, as sysprompt runs
// them, from dir.
func (r *repo) want(dir string) (status, log []string) {
	r.t.Helper()
	// stdout only, as the snapshot reads it: git warns on stderr.
	cmd := exec.Command("git", "-c", "core.untrackedCache=false", "-c", "core.fsmonitor=false", "status", "--short", "--untracked-files=normal", "--no-renames")
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git status: %v", err)
	}
	status = lines(string(out))
	cmd = exec.Command("git", "-c", "log.showSignature=false", "log", "--oneline", "--no-decorate", "-5")
	cmd.Dir, cmd.Env = dir, r.env
	if b, err := cmd.Output(); err == nil {
		log = lines(string(b))
	}
	return status, log
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// check compares Read with git, from the top and from each dir given.
func (r *repo) check(dirs ...string) {
	r.t.Helper()
	for _, sub := range append([]string{""}, dirs...) {
		dir := filepath.Join(r.dir, sub)
		ws, wl := r.want(dir)
		got, err := Read(context.Background(), dir, r.env)
		if err != nil {
			r.t.Fatalf("Read(%q): %v\ngit status:\n%s", sub, err, strings.Join(ws, "\n"))
		}
		if !slices.Equal(got.Status, ws) {
			r.t.Errorf("status from %q:\ngot:\n%s\ngit:\n%s", sub, strings.Join(got.Status, "\n"), strings.Join(ws, "\n"))
		}
		if !slices.Equal(got.Commits, wl) {
			r.t.Errorf("log from %q:\ngot:\n%s\ngit:\n%s", sub, strings.Join(got.Commits, "\n"), strings.Join(wl, "\n"))
		}
	}
}

// unsupported asserts that Read declines the repository.
func (r *repo) unsupported(what string) {
	r.t.Helper()
	_, err := Read(context.Background(), r.dir, r.env)
	var u *UnsupportedError
	if !errors.As(err, &u) {
		r.t.Errorf("%s: Read = %v, want an *UnsupportedError", what, err)
	}
}

func TestEmptyRepository(t *testing.T) {
	r := newRepo(t)
	r.check()
	r.write("a.txt", "a")
	r.write("d/b.txt", "b")
	r.check("d")
	r.git("add", "a.txt")
	r.check("d")
}

func TestChangesAgainstHeadAndIndex(t *testing.T) {
	r := newRepo(t)
	for _, f := range []string{"keep", "mod", "staged", "both", "gone", "staged-gone", "dir/x", "dir/y", "moved", "smv", "exec", "tochange"} {
		r.write(f, "content of "+f+"\n")
	}
	r.commit("first")
	r.write("mod", "changed\n")
	r.write("staged", "changed\n")
	r.git("add", "staged")
	r.write("both", "changed once\n")
	r.git("add", "both")
	r.write("both", "changed twice\n")
	os.Remove(filepath.Join(r.dir, "gone"))
	r.git("rm", "-q", "staged-gone")
	r.write("new-staged", "n\n")
	r.git("add", "new-staged")
	r.write("added-then-changed", "1\n")
	r.git("add", "added-then-changed")
	r.write("added-then-changed", "2\n")
	r.write("added-then-gone", "1\n")
	r.git("add", "added-then-gone")
	os.Remove(filepath.Join(r.dir, "added-then-gone"))
	os.Rename(filepath.Join(r.dir, "moved"), filepath.Join(r.dir, "moved2"))
	r.git("mv", "smv", "smv2")
	os.Chmod(filepath.Join(r.dir, "exec"), 0o755)
	r.git("rm", "-q", "--cached", "dir/y")
	r.write("dir/new", "n")
	r.check("dir")
	for _, v := range []string{"3", "4", "2"} {
		r.git("update-index", "--index-version", v)
		r.check()
	}
}

func TestNamesGitQuotes(t *testing.T) {
	r := newRepo(t)
	names := []string{"a b.txt", "é.txt", "tab\there", "quote\"d", "back\\slash", "nl\nx", "日本/語.txt", "sp dir/f", "x\x01y", "del\x7f"}
	for _, n := range names {
		r.write(n, n)
	}
	r.git("add", "a b.txt", "é.txt")
	r.commit("names")
	for _, n := range names {
		r.write(n, n+" changed")
	}
	r.write("new é", "x")
	r.write("new dir é/f", "x")
	r.check("日本")
}

func TestSymlinksAndTypeChanges(t *testing.T) {
	r := newRepo(t)
	r.write("target", "t")
	r.write("file", "f")
	r.write("tolink", "f")
	os.Symlink("target", filepath.Join(r.dir, "link"))
	os.Symlink("target", filepath.Join(r.dir, "link2"))
	r.write("dir/a", "a")
	r.write("becomes-dir", "b")
	r.commit("links")
	os.Remove(filepath.Join(r.dir, "link"))
	os.Symlink("file", filepath.Join(r.dir, "link"))
	os.Remove(filepath.Join(r.dir, "tolink"))
	os.Symlink("file", filepath.Join(r.dir, "tolink"))
	os.Remove(filepath.Join(r.dir, "link2"))
	r.write("link2", "target")
	os.Symlink("dir", filepath.Join(r.dir, "newlink"))
	os.Remove(filepath.Join(r.dir, "becomes-dir"))
	r.write("becomes-dir/inside", "x")
	r.check()
	// A tracked directory replaced by a link to itself elsewhere.
	os.Rename(filepath.Join(r.dir, "dir"), filepath.Join(r.dir, "dir-real"))
	os.Symlink("dir-real", filepath.Join(r.dir, "dir"))
	r.check()
}

func TestIgnoredAndUntrackedDirectories(t *testing.T) {
	r := newRepo(t)
	home := strings.TrimPrefix(r.env[1], "HOME=")
	r.write(".gitignore", "*.log\n/build/\n!keep.log\nnode_modules\nsub/only-here\n")
	r.write("sub/.gitignore", "*.tmp\n!important.tmp\n")
	r.write("tracked/a", "a")
	r.write("tracked/ignored.log", "tracked though ignored")
	r.git("add", "-f", "tracked/ignored.log")
	r.commit("ignores")
	os.WriteFile(filepath.Join(r.dir, ".git", "info", "exclude"), []byte("from-exclude\n"), 0o644)
	os.WriteFile(filepath.Join(home, "global-ignore"), []byte("*.global\n"), 0o644)
	r.git("config", "core.excludesFile", "~/global-ignore")
	for _, f := range []string{"x.log", "keep.log", "build/out", "node_modules/p/i.js", "sub/a.tmp", "sub/important.tmp", "sub/only-here",
		"from-exclude", "y.global", "tracked/b.log", "tracked/c", "untr/deep/er/file", "only-ignored/x.log", "nested/inner/.gitkeep-no",
		"sub/deeper/z.tmp", "mixed/a.log", "mixed/b.txt"} {
		r.write(f, "x")
	}
	os.MkdirAll(filepath.Join(r.dir, "empty/also-empty"), 0o755)
	os.MkdirAll(filepath.Join(r.dir, "withrepo/clone"), 0o755)
	r.gitIn(filepath.Join(r.dir, "withrepo/clone"), "init", "-q")
	os.MkdirAll(filepath.Join(r.dir, "barerepo"), 0o755)
	r.gitIn(filepath.Join(r.dir, "barerepo"), "init", "-q")
	r.write("tracked/deeper/newrepo/.keep", "")
	r.gitIn(filepath.Join(r.dir, "tracked/deeper/newrepo"), "init", "-q")
	r.check("sub", "tracked")
}

// An entry written in the same second as the index is racily clean: its
// stat matches yet its content may have changed.
// git reads no .gitignore or .gitattributes that is a symbolic link.
func TestLinkedIgnoreFiles(t *testing.T) {
	r := newRepo(t)
	r.write("patterns", "*.txt\n")
	r.write("attrs", "* text eol=crlf\n")
	r.write("sub/a.txt", "a")
	r.commit("one")
	os.Symlink("../patterns", filepath.Join(r.dir, "sub", ".gitignore"))
	os.Symlink("attrs", filepath.Join(r.dir, ".gitattributes"))
	r.write("sub/b.txt", "b")
	r.write("sub/a.txt", "changed")
	r.check()
}

func TestRacyEntries(t *testing.T) {
	r := newRepo(t)
	r.write("same-size", "aaaa")
	r.write("untouched", "bbbb")
	r.commit("racy")
	r.write("same-size", "cccc")
	idx, err := os.Stat(filepath.Join(r.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	// The change keeps the size and the index's own time.
	for _, f := range []string{"same-size", "untouched"} {
		os.Chtimes(filepath.Join(r.dir, f), idx.ModTime(), idx.ModTime())
	}
	r.check()
	// Touched without a change: the stat differs, the content does not.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(r.dir, "untouched"), later, later)
	r.check()
}

func TestPackedHistory(t *testing.T) {
	r := newRepo(t)
	base := strings.Repeat("line of text that repeats\n", 200)
	for i := 0; i < 12; i++ {
		r.write("big.txt", base+fmt.Sprintf("edit %d\n", i))
		r.write(fmt.Sprintf("d%d/f", i%3), fmt.Sprint(i))
		r.commit(fmt.Sprintf("commit %d\n\nbody %d", i, i))
	}
	r.git("gc", "-q", "--aggressive", "--prune=now")
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "packed-refs")); err != nil {
		t.Fatalf("gc left no packed-refs: %v", err)
	}
	r.write("big.txt", base+"edit 3\n")
	r.write("d1/f", "changed")
	r.check("d0")
	// Loose objects beside the pack.
	r.commit("after gc")
	r.check()
	// Detached.
	r.git("checkout", "-q", "--detach", "HEAD~3")
	r.check()
}

// History with merges, equal commit dates and odd messages is listed in
// git's order.
func TestLogOrder(t *testing.T) {
	r := newRepo(t)
	at := func(sec int) {
		d := fmt.Sprintf("@%d +0000", 1700000000+sec)
		r.env = append(r.env, "GIT_COMMITTER_DATE="+d, "GIT_AUTHOR_DATE="+d)
	}
	at(0)
	r.commit("root")
	r.git("checkout", "-q", "-b", "side")
	at(10)
	r.write("s", "1")
	r.commit("side one")
	at(30)
	r.write("s", "2")
	r.commit("side two")
	r.git("checkout", "-q", "main")
	at(20)
	r.write("m", "1")
	r.commit("main one")
	at(30)
	r.write("m", "2")
	r.commit("  leading spaces\nand a second line   \n\nbody")
	at(40)
	r.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	r.check()
	r.git("commit", "-q", "--allow-empty", "--allow-empty-message", "-m", "")
	r.check()
}

func TestWorktreeAndSubdirectory(t *testing.T) {
	r := newRepo(t)
	r.write("a/b/c", "c")
	r.write("top", "t")
	r.commit("one")
	r.write("a/b/c", "changed")
	r.write("a/new", "n")
	r.write("other/x", "x")
	r.check("a", "a/b", "other")
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", "-b", "feature", wt)
	os.WriteFile(filepath.Join(wt, "top"), []byte("in worktree"), 0o644)
	wr := &repo{t: t, dir: wt, env: r.env}
	wr.check("a")
}

// Included files are read; one that only might apply (includeIf) and
// sets nothing the reading depends on changes nothing.
func TestIncludedConfiguration(t *testing.T) {
	r := newRepo(t)
	r.write("x", "x")
	r.commit("one")
	home := strings.TrimPrefix(r.env[1], "HOME=")
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.inc\n[include]\n\tpath = missing.inc\n\tpath = base.inc\n"), 0o644)
	os.WriteFile(filepath.Join(home, "work.inc"), []byte("[user]\n\temail = w@w\n"), 0o644)
	os.WriteFile(filepath.Join(home, "base.inc"), []byte("[core]\n\texcludesFile = ~/ign\n"), 0o644)
	os.WriteFile(filepath.Join(home, "ign"), []byte("*.ign\n"), 0o644)
	r.write("a.ign", "ignored through an included setting")
	r.write("b.txt", "shown")
	r.check()
}

// With core.fileMode off the executable bit is no change.
func TestFileModeOff(t *testing.T) {
	r := newRepo(t)
	r.write("x", "x")
	r.write("y", "y")
	r.commit("one")
	r.git("config", "core.fileMode", "false")
	os.Chmod(filepath.Join(r.dir, "x"), 0o755)
	r.write("y", "changed")
	os.Chmod(filepath.Join(r.dir, "y"), 0o755)
	r.check()
}

func TestNoIndexAndDeletedEverything(t *testing.T) {
	r := newRepo(t)
	r.write("a", "a")
	r.write("d/b", "b")
	r.commit("one")
	os.Remove(filepath.Join(r.dir, ".git", "index"))
	r.check()
}

// 16,384 objects in packs make git abbreviate to 8 characters.
func TestAbbreviationGrowsWithThePack(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 17,000 objects with git fast-import")
	}
	r := newRepo(t)
	var b strings.Builder
	for i := 0; i < 17000; i++ {
		fmt.Fprintf(&b, "blob\ndata %d\nblob %d\n", len(fmt.Sprintf("blob %d", i)), i)
	}
	b.WriteString("commit refs/heads/main\ncommitter t <t@t> 1700000000 +0000\ndata 5\nlast\n\n")
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = r.dir, r.env, strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	r.git("read-tree", "HEAD")
	r.check()
	st, err := Read(context.Background(), r.dir, r.env)
	if err != nil || len(st.Commits) != 1 || strings.Index(st.Commits[0], " ") != 8 {
		t.Errorf("commits = %q, %v; want an 8-character abbreviation", st.Commits, err)
	}
}

func TestUnsupportedRepositories(t *testing.T) {
	cases := map[string]func(r *repo){
		"sha256": nil, // built separately below
		"alternates": func(r *repo) {
			os.WriteFile(filepath.Join(r.dir, ".git/objects/info/alternates"), []byte("/nonexistent\n"), 0o644)
		},
		"submodule": func(r *repo) {
			r.git("update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",sub")
		},
		"sparse checkout":  func(r *repo) { r.git("config", "core.sparseCheckout", "true") },
		"skip-worktree":    func(r *repo) { r.git("update-index", "--skip-worktree", "a") },
		"assume-unchanged": func(r *repo) { r.git("update-index", "--assume-unchanged", "a") },
		"split index":      func(r *repo) { r.git("update-index", "--split-index") },
		"intent to add":    func(r *repo) { r.write("n", "n"); r.git("add", "-N", "n") },
		"graft":            func(r *repo) { os.WriteFile(filepath.Join(r.dir, ".git/info/grafts"), []byte{}, 0o644) },
		"replace ref":      func(r *repo) { r.git("replace", "HEAD", "HEAD") },
		"shallow":          func(r *repo) { os.WriteFile(filepath.Join(r.dir, ".git/shallow"), []byte{}, 0o644) },
		"worktree config":  func(r *repo) { r.git("config", "extensions.worktreeConfig", "true") },
		"autocrlf":         func(r *repo) { r.git("config", "core.autocrlf", "true") },
		"eol":              func(r *repo) { r.git("config", "core.eol", "crlf") },
		"text attribute":   func(r *repo) { r.write(".gitattributes", "*.txt text\n") },
		"filter attribute": func(r *repo) {
			r.write("sub/f", "f")
			r.git("add", "sub/f")
			r.write("sub/.gitattributes", "* filter=x\n")
		},
		"info attributes": func(r *repo) {
			os.WriteFile(filepath.Join(r.dir, ".git/info/attributes"), []byte("* eol=crlf\n"), 0o644)
		},
		"fsmonitor": func(r *repo) { r.git("config", "core.fsmonitor", "true") },
		"conditional include": func(r *repo) {
			r.write("../inc", "[core]\n\tquotePath = false\n")
			r.git("config", "includeIf.gitdir:/nowhere/.path", "../../inc")
		},
		"include": func(r *repo) {
			r.write("../inc", "[include]\n\tpath = inc2\n")
			r.write("../inc2", "[core]\n\tignoreCase = true\n")
			r.git("config", "include.path", "../../inc")
		},
		"ignorecase":    func(r *repo) { r.git("config", "core.ignoreCase", "true") },
		"quotepath off": func(r *repo) { r.git("config", "core.quotePath", "false") },
		"status branch": func(r *repo) { r.git("config", "status.branch", "true") },
		"abbrev":        func(r *repo) { r.git("config", "core.abbrev", "12") },
		"latin-1 message": func(r *repo) {
			r.git("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "--allow-empty", "-m", "caf\xe9")
		},
		"unmerged":          nil,
		"corrupt object":    nil,
		"multi-pack-index":  func(r *repo) { r.git("gc", "-q"); r.git("multi-pack-index", "write") },
		"too many entries":  nil,
		"git dir variable":  func(r *repo) { r.env = append(r.env, "GIT_DIR="+filepath.Join(r.dir, ".git")) },
		"color always":      func(r *repo) { r.git("config", "color.status", "always") },
		"nonbare work tree": func(r *repo) { r.git("config", "core.worktree", "/tmp") },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			r := newRepo(t)
			r.write("a", "a")
			r.commit("one")
			switch name {
			case "sha256":
				r = &repo{t: t, dir: filepath.Join(t.TempDir(), "s"), env: r.env}
				r.gitIn(filepath.Dir(r.dir), "init", "-q", "--object-format=sha256", r.dir)
			case "unmerged":
				cmd := exec.Command("git", "update-index", "--index-info")
				cmd.Dir, cmd.Env = r.dir, r.env
				cmd.Stdin = strings.NewReader("100644 " + strings.TrimSpace(r.git("rev-parse", "HEAD:a")) + " 1\ta\n")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v %s", err, out)
				}
			case "corrupt object":
				head := strings.TrimSpace(r.git("rev-parse", "HEAD"))
				p := filepath.Join(r.dir, ".git", "objects", head[:2], head[2:])
				os.Chmod(p, 0o644)
				os.WriteFile(p, []byte("not zlib"), 0o644)
			case "too many entries":
				for i := 0; i <= maxEntries; i++ {
					r.write(fmt.Sprintf("many/%d", i), "")
				}
				r.git("add", "many")
			default:
				change(r)
			}
			r.unsupported(name)
		})
	}
}

// Index version 4 stores how much of the previous path a name drops in
// git's offset encoding, which differs from a plain varint from 128 on:
// a long name followed by a short one.
func TestIndexVersion4DropsLongPrefixes(t *testing.T) {
	r := newRepo(t)
	long := strings.Repeat("d", 150) + "/" + strings.Repeat("f", 60)
	r.write(long, "1\n")
	r.write("z", "1\n")
	r.git("add", "-A")
	r.commit("long")
	r.write(long, "2\n")
	r.write("z", "2\n")
	r.git("update-index", "--index-version", "4")
	r.check()
}

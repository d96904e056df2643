package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newRepo makes a repository with one commit and returns its directory.
// Commits need an identity; git reads it from the test's environment.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("XDG_CONFIG_HOME", tmp)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "a")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "a@example.com")
	}
	dir := filepath.Join(tmp, "repo")
	gitT(t, tmp, "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLifecycle(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	r := open(t, dir)
	wt, made, err := r.Create(ctx, "fix-1")
	if err != nil || !made {
		t.Fatalf("Create = %+v, %v, %v", wt, made, err)
	}
	if want := filepath.Join(dir, ".ply", "worktrees", "fix-1"); wt.Path != want || wt.Branch != "ply/fix-1" || wt.Name != "fix-1" {
		t.Fatalf("worktree = %+v, want path %s on ply/fix-1", wt, want)
	}
	if _, err := os.Stat(filepath.Join(wt.Path, "a.txt")); err != nil {
		t.Fatalf("the worktree has no checkout: %v", err)
	}
	// The main work tree does not see the worktree as untracked files,
	// and the user's .gitignore was not touched.
	if st := gitT(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status in the main work tree = %q, want clean", st)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".gitignore was created: %v", err)
	}
	ex, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	if strings.Count(string(ex), excludeLine) != 1 {
		t.Fatalf("info/exclude = %q", ex)
	}
	// Again: the same worktree, and no second exclude line.
	again, made, err := r.Create(ctx, "fix-1")
	if err != nil || made || again.Path != wt.Path {
		t.Fatalf("second Create = %+v, %v, %v", again, made, err)
	}
	if _, _, err := r.Create(ctx, "fix-2"); err != nil {
		t.Fatal(err)
	}
	ex, _ = os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
	if strings.Count(string(ex), excludeLine) != 1 {
		t.Fatalf("info/exclude after two worktrees = %q", ex)
	}
	// Opened from inside a worktree, the repository is the main one.
	if in := open(t, wt.Path); in.Root != r.Root {
		t.Fatalf("Root from the worktree = %s, want %s", in.Root, r.Root)
	}
	list, err := r.List(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "fix-1" || list[1].Name != "fix-2" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if err := r.Remove(ctx, "fix-1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the worktree's directory is still there: %v", err)
	}
	if _, err := r.Find(ctx, "fix-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find after Remove = %v", err)
	}
	// The branch and its commits stay.
	gitT(t, dir, "rev-parse", "--verify", "refs/heads/ply/fix-1")
	if err := r.Remove(ctx, "fix-1", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove = %v, want ErrNotFound", err)
	}
	// Made again, it goes on on the kept branch.
	back, made, err := r.Create(ctx, "fix-1")
	if err != nil || !made || back.Branch != "ply/fix-1" {
		t.Fatalf("Create on the kept branch = %+v, %v, %v", back, made, err)
	}
}

func TestOutsideRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	if _, err := Open(context.Background(), dir); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("Open outside a repository = %v, want ErrNotRepo", err)
	}
}

func TestRemoveRefusesUncommittedWork(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	r := open(t, dir)
	wt, _, err := r.Create(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(){
		"untracked": func() { write(t, filepath.Join(wt.Path, "new.txt"), "x\n") },
		"modified":  func() { write(t, filepath.Join(wt.Path, "a.txt"), "changed\n") },
	} {
		change()
		var dirty *DirtyError
		if err := r.Remove(ctx, "w", false); !errors.As(err, &dirty) || dirty.Changes != 1 {
			t.Fatalf("%s: Remove = %v, want a DirtyError for 1 change", name, err)
		}
		if _, err := os.Stat(wt.Path); err != nil {
			t.Fatalf("%s: the refused removal removed the worktree: %v", name, err)
		}
		gitT(t, wt.Path, "add", "-A")
		gitT(t, wt.Path, "commit", "-q", "-m", name)
	}
	write(t, filepath.Join(wt.Path, "scratch"), "x")
	if err := r.Remove(ctx, "w", true); err != nil {
		t.Fatalf("Remove --force = %v", err)
	}
	if _, err := os.Stat(wt.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("forced removal left the directory: %v", err)
	}
}

func TestCreateRefusals(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	r := open(t, dir)
	for _, bad := range []string{"", "../x", "a/b", "-x", "a..b", "x.lock", "sp ace", strings.Repeat("a", 65)} {
		if _, _, err := r.Create(ctx, bad); err == nil {
			t.Errorf("Create(%q) succeeded", bad)
		}
	}
	write(t, r.Path("taken"), "not a worktree")
	if _, _, err := r.Create(ctx, "taken"); err == nil || !strings.Contains(err.Error(), "not a worktree") {
		t.Fatalf("Create over a plain directory = %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	gitT(t, filepath.Dir(empty), "init", "-q", empty)
	if _, _, err := open(t, empty).Create(ctx, "w"); err == nil || !strings.Contains(err.Error(), "no commit") {
		t.Fatalf("Create in a repository without commits = %v", err)
	}
}

// A repository's configuration and committed attributes name programs
// (a post-checkout hook, a smudge filter); creating a worktree runs none.
func TestHostileRepositoryRunsNothing(t *testing.T) {
	dir := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	write(t, filepath.Join(dir, ".git", "hooks", "post-checkout"), hook)
	if err := os.Chmod(filepath.Join(dir, ".git", "hooks", "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(dir, "myhooks")
	write(t, filepath.Join(hooks, "post-checkout"), hook)
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=evil\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "attrs")
	gitT(t, dir, "config", "core.hooksPath", hooks)
	gitT(t, dir, "config", "filter.evil.smudge", "touch "+marker+"; cat")
	gitT(t, dir, "config", "filter.evil.process", "touch "+marker)
	ctx := context.Background()
	r := open(t, dir)
	wt, _, err := r.Create(ctx, "safe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Diff(ctx, wt.Path, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "safe", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a program of the repository's configuration ran")
	}
}

func TestDiff(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	r := open(t, dir)
	wt, _, err := r.Create(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Diff(ctx, wt.Path, wt.Head)
	if err != nil || len(s.Files) != 0 || s.String() != "no files changed" {
		t.Fatalf("Diff of a fresh worktree = %+v, %v", s, err)
	}
	write(t, filepath.Join(wt.Path, "a.txt"), "one\n2\n3\n")
	gitT(t, wt.Path, "commit", "-q", "-am", "edit")
	write(t, filepath.Join(wt.Path, "b.txt"), "x\ny") // untracked, no final newline
	write(t, filepath.Join(wt.Path, "bin"), "\x00\x01")
	s, err = r.Diff(ctx, wt.Path, wt.Head)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), "3 files changed, +4 -1"; got != want {
		t.Fatalf("Diff = %q (%+v), want %q", got, s.Files, want)
	}
}

// A worktree asked for from inside another starts from that one's
// commit; DeleteBranch keeps a branch with commits.
func TestCreateFromWorktreeAndDeleteBranch(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	a, _, err := open(t, dir).Create(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(a.Path, "only-in-a"), "x\n")
	gitT(t, a.Path, "add", ".")
	gitT(t, a.Path, "commit", "-q", "-m", "a's work")
	ra := open(t, a.Path)
	b, _, err := ra.Create(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.Path != filepath.Join(dir, ".ply", "worktrees", "b") {
		t.Fatalf("b is at %s", b.Path)
	}
	if _, err := os.Stat(filepath.Join(b.Path, "only-in-a")); err != nil {
		t.Fatalf("b does not start from a's commit: %v", err)
	}
	base := b.Head
	if err := ra.Remove(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	if err := ra.DeleteBranch(ctx, "ply/a", base+"0"); err == nil {
		t.Fatal("DeleteBranch deleted a branch whose tip is not the base")
	}
	if err := ra.DeleteBranch(ctx, "ply/b", base); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command("git", "-C", dir, "branch", "--list", "ply/b").Output(); len(out) != 0 {
		t.Fatalf("ply/b still exists: %s", out)
	}
}

// A repository that commits .ply (or .ply/worktrees) as a link cannot
// make ply create a worktree where the link points.
func TestCreateRefusesLinkedDirectory(t *testing.T) {
	for _, link := range []string{".ply", ".ply/worktrees"} {
		t.Run(link, func(t *testing.T) {
			dir := newRepo(t)
			outside := t.TempDir()
			at := filepath.Join(dir, filepath.FromSlash(link))
			if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, at); err != nil {
				t.Fatal(err)
			}
			gitT(t, dir, "add", ".")
			gitT(t, dir, "commit", "-q", "-m", "link")
			_, _, err := open(t, dir).Create(context.Background(), "autostart")
			if err == nil || !strings.Contains(err.Error(), "link") {
				t.Fatalf("Create through a linked %s = %v", link, err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("something was created where the link points: %v", entries)
			}
		})
	}
}

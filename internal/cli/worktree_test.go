package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/session"
)

// gitRepo makes a repository with one committed file, a.txt.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	gitIn(t, filepath.Dir(dir), "init", "-q", dir)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "-c", "user.name=a", "-c", "user.email=a@example.com", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "first")
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// writeTurn is a reply that writes path with text, then the final answer.
func writeTurns(path, text, answer string) []fp.Turn {
	return []fp.Turn{
		{fp.ToolCall("c1", "write_file", `{"file_path":"`+path+`","content":"`+text+`"}`)},
		{fp.Text(answer)},
	}
}

func TestWorktreeRunResumeAndRemove(t *testing.T) {
	dir, home := gitRepo(t), t.TempDir()
	wtDir := filepath.Join(dir, ".ply", "worktrees", "feat")
	turns := writeTurns("new.txt", "made in the worktree", "done")
	turns = append(turns, fp.Turn{fp.ToolCall("c2", "read_file", `{"file_path":"new.txt"}`)}, fp.Turn{fp.Text("read it")})
	srv := fp.New(t, turns...)
	id := "3f2a7c1e-8d4b-4c2a-9e6f-0a1b2c3d4e5f"
	r := runPlyHome(t, dir, home, srv, "-y", "--worktree", "feat", "--session-id", id, "-p", "make a file")
	if r.code != 0 || !strings.Contains(r.stderr, "created worktree feat (branch ply/feat)") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(wtDir, "new.txt")); err != nil || string(b) != "made in the worktree" {
		t.Fatalf("the worktree's new.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file was written in the main work tree too: %v", err)
	}
	if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("the main work tree is not clean: %q", st)
	}
	sum, err := session.Find(home, wtDir, id)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.Load(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	if w := tr.Meta.Worktree; w == nil || w.Name != "feat" || w.Branch != "ply/feat" {
		t.Fatalf("the transcript's worktree = %+v", w)
	}

	// Resumed from the main work tree, the session goes back to its
	// worktree: new.txt is there, relative to the workspace.
	r = runPlyHome(t, dir, home, srv, "-y", "-r", id[:8], "-p", "read it back")
	if r.code != 0 || !strings.Contains(r.stderr, "working in worktree feat") || !strings.Contains(r.stdout, "read it") {
		t.Fatalf("resume: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Text(); !strings.Contains(got, "made in the worktree") {
		t.Fatalf("read_file in the resumed session answered %q", got)
	}
	if list, _ := session.List(home, dir); len(list) != 0 {
		t.Fatalf("the resume made sessions in the main work tree: %+v", list)
	}

	r = runPlyHome(t, dir, home, nil, "worktree", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "feat") || !strings.Contains(r.stdout, "ply/feat") {
		t.Fatalf("worktree list: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// new.txt is not committed: removal is refused, and loses nothing.
	r = runPlyHome(t, dir, home, nil, "worktree", "remove", "feat")
	if r.code != 42 || !strings.Contains(r.stderr, "uncommitted") {
		t.Fatalf("remove with changes: %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(wtDir, "new.txt")); err != nil {
		t.Fatalf("a refused removal lost the file: %v", err)
	}
	r = runPlyHome(t, dir, home, nil, "worktree", "remove", "--force", "feat")
	if r.code != 0 || !strings.Contains(r.stdout, "branch ply/feat is kept") {
		t.Fatalf("remove --force: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(wtDir); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
}

func TestWorktreeOutsideGitRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	srv := fp.New(t, fp.Turn{fp.Text("never")})
	r := runPlyHome(t, dir, home, srv, "--worktree", "-p", "hello")
	if r.code != 42 || !strings.Contains(r.stderr, "not in a git repository") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
	for _, args := range [][]string{{"worktree", "list"}, {"worktree", "remove", "x"}} {
		if r := runPlyHome(t, dir, home, nil, args...); r.code != 42 || !strings.Contains(r.stderr, "not in a git repository") {
			t.Fatalf("%v: exit %d stderr %s", args, r.code, r.stderr)
		}
	}
}

// A session in a worktree has checkpoints, and ply rewind run in the
// worktree puts its files back there, leaving the main work tree alone.
func TestWorktreeRewind(t *testing.T) {
	dir, home := gitRepo(t), t.TempDir()
	wtDir := filepath.Join(dir, ".ply", "worktrees", "rw")
	srv := fp.New(t, writeTurns("a.txt", "changed by the agent", "done")...)
	if r := runPlyHome(t, dir, home, srv, "-y", "--worktree=rw", "-p", "change a.txt"); r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(wtDir, "a.txt")); string(b) != "changed by the agent" {
		t.Fatalf("a.txt in the worktree = %q", b)
	}
	r := runPlyHome(t, wtDir, home, nil, "rewind", "1", "--code")
	if r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(wtDir, "a.txt")); string(b) != "original\n" {
		t.Fatalf("a.txt in the worktree after rewind = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "original\n" {
		t.Fatalf("a.txt in the main work tree = %q", b)
	}
}

func TestParseWorktreeFlag(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		name, rest string
	}{
		{[]string{"--worktree", "fix", "-p", "x"}, "fix", ""},
		{[]string{"--worktree", "fix the bug"}, "", "fix the bug"},
		{[]string{"-w", "-p", "x"}, "", ""},
		{[]string{"--worktree=a.b", "go"}, "a.b", "go"},
		{[]string{"--worktree"}, "", ""},
	} {
		o, err := Parse(tc.args)
		if err != nil || !o.Worktree || o.WorktreeName != tc.name || strings.Join(o.Positional, " ") != tc.rest {
			t.Errorf("Parse(%q) = %+v, %v", tc.args, o, err)
		}
	}
	if o, _ := Parse([]string{"-p", "x"}); o.Worktree {
		t.Error("--worktree set without the flag")
	}
}

// A subagent whose definition asks for worktree isolation writes in a
// worktree of its own, and its report gives the parent the branch and a
// diff summary; one that changed nothing leaves no worktree behind.
func TestWorktreeSubagent(t *testing.T) {
	dir, home := gitRepo(t), t.TempDir()
	agents := filepath.Join(home, "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nname: iso\ndescription: works apart\nisolation: worktree\n---\nDo the task.\n"
	if err := os.WriteFile(filepath.Join(agents, "iso.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("p1", "agent", `{"description":"make b","prompt":"write b.txt","subagent_type":"iso"}`)},
		fp.Turn{fp.ToolCall("s1", "write_file", `{"file_path":"b.txt","content":"one\ntwo\n"}`)},
		fp.Turn{fp.ToolCall("s2", "edit", `{"file_path":"a.txt","old_string":"original","new_string":"edited"}`)},
		fp.Turn{fp.Text("wrote b.txt")},
		fp.Turn{fp.ToolCall("p2", "agent", `{"description":"look","prompt":"just look","subagent_type":"iso"}`)},
		fp.Turn{fp.Text("nothing to do")},
		fp.Turn{fp.Text("all done")},
	)
	r := runPlyHome(t, dir, home, srv, "-y", "-p", "delegate")
	if r.code != 0 || r.stdout != "all done\n" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	made, _ := filepath.Glob(filepath.Join(dir, ".ply", "worktrees", "agent-iso-*"))
	if len(made) != 1 {
		t.Fatalf("worktrees left: %v (want the one with changes)", made)
	}
	if b, err := os.ReadFile(filepath.Join(made[0], "b.txt")); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("b.txt in the subagent's worktree = %q, %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(made[0], "a.txt")); string(b) != "edited\n" {
		t.Fatalf("a.txt in the subagent's worktree = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "original\n" {
		t.Fatalf("the subagent changed the parent's a.txt: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt was written in the parent's workspace: %v", err)
	}
	reqs := srv.Requests()
	first := reqs[4].Messages
	report := first[len(first)-1].Text()
	name := filepath.Base(made[0])
	for _, want := range []string{"wrote b.txt", "branch ply/" + name, "2 files changed, +3 -1", "a.txt +1 -1", "b.txt +2 -0 (new, uncommitted)"} {
		if !strings.Contains(report, want) {
			t.Errorf("the parent's tool result lacks %q:\n%s", want, report)
		}
	}
	second := reqs[6].Messages
	if got := second[len(second)-1].Text(); !strings.Contains(got, "changed nothing") {
		t.Errorf("the second report = %q", got)
	}
	if out := gitIn(t, dir, "branch", "--list", "ply/agent-iso-*"); strings.Count(out, "ply/") != 1 {
		t.Errorf("branches = %q, want only the one with changes", out)
	}
}

// A session in the main work tree neither records nor rewinds the files
// of the worktrees under it.
func TestMainRewindLeavesWorktreesAlone(t *testing.T) {
	dir, home := gitRepo(t), t.TempDir()
	wtDir := filepath.Join(dir, ".ply", "worktrees", "other")
	srv := fp.New(t, writeTurns("other.txt", "the worktree's work", "done")...)
	if r := runPlyHome(t, dir, home, srv, "-y", "--worktree", "other", "-p", "work there"); r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	srv2 := fp.New(t, writeTurns("main.txt", "main's work", "done")...)
	if r := runPlyHome(t, dir, home, srv2, "-y", "-p", "work here"); r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	// Work in the worktree after the main session's checkpoints.
	if err := os.WriteFile(filepath.Join(wtDir, "later.txt"), []byte("later"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, wtDir)
	if r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code"); r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "main.txt")); !os.IsNotExist(err) {
		t.Fatalf("the rewind left main.txt: %v", err)
	}
	sameTree(t, "the worktree after a rewind in the main work tree", treeOf(t, wtDir), before)
}

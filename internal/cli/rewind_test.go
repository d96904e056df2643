package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/session"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// treeOf reads every file, link and directory under root, .git and
// ignored files included: "path" → mode and content or link target.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel+"/"] = ""
		case fi.Mode()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			out[rel] = "-> " + tgt
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fi.Mode().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s = %q should not exist", what, k, v)
		}
	}
}

func TestRewindHeadless(t *testing.T) {
	for _, git := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "no-git"}[git], func(t *testing.T) { rewindSession(t, git) })
	}
}

func rewindSession(t *testing.T, git bool) {
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n", 0o644)
	writeFile(t, filepath.Join(dir, "old.txt"), "old\n", 0o644)
	writeFile(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(dir, ".gitignore"), "build/\n", 0o644)
	writeFile(t, filepath.Join(dir, "build", "x.o"), "object", 0o644)
	if git {
		writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	}
	if err := os.Symlink("main.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, "main.go")
	snaps := []map[string]string{treeOf(t, dir)}
	srv := fp.New(t,
		// Prompt 1: edit a file, create one.
		fp.Turn{fp.ToolCall("r1", "read_file", mustJSON(map[string]any{"file_path": main}))},
		fp.Turn{fp.ToolCall("e1", "edit", mustJSON(map[string]any{"file_path": main, "old_string": "func main() {}", "new_string": "func main() { println(1) }"})),
			fp.ToolCall("w1", "write_file", mustJSON(map[string]any{"file_path": filepath.Join(dir, "new.txt"), "content": "new\n"}))},
		fp.Turn{fp.Text("one done")},
		// Prompt 2: a shell command deletes, creates nested directories,
		// changes a mode bit and a link.
		fp.Turn{fp.ToolCall("s1", "run_shell_command", mustJSON(map[string]string{
			"command": "rm old.txt && mkdir -p a/b && echo hi > a/b/c.txt && chmod -x run.sh && ln -sfn new.txt link && echo later > build/y.o"}))},
		fp.Turn{fp.Text("two done")},
		// Prompt 3: talk only.
		fp.Turn{fp.Text("three done")},
		// After the rewind.
		fp.Turn{fp.Text("again done")},
	)
	for i, args := range [][]string{
		{"-y", "-p", "one: edit and create"},
		{"-y", "--continue", "-p", "two: shell"},
		{"-y", "--continue", "-p", "three: talk"},
	} {
		if r := runPlyHome(t, dir, home, srv, args...); r.code != 0 {
			t.Fatalf("prompt %d: exit %d, stderr:\n%s", i+1, r.code, r.stderr)
		}
		snaps = append(snaps, treeOf(t, dir))
	}
	if snaps[2]["old.txt"] != "" || snaps[2]["a/b/c.txt"] == "" || snaps[1]["new.txt"] == "" {
		t.Fatalf("the prompts did not change the tree as scripted: %v", snaps[2])
	}
	ignored := snaps[3]["build/y.o"]

	r := runPlyHome(t, dir, home, nil, "rewind", "--list")
	t.Log(r.stdout)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 4 || !strings.Contains(lines[0], "one: edit and create") ||
		!strings.Contains(lines[2], "0 files changed since") || !strings.Contains(lines[0], "files changed since") ||
		!strings.Contains(lines[3], "counted up to the last checkpoint") {
		t.Fatalf("--list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A listing takes no lock: it answers beside a ply holding the session.
	sum, err := session.Latest(home, dir)
	if err != nil {
		t.Fatal(err)
	}
	held, _, err := session.Open(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	if r2 := runPlyHome(t, dir, home, nil, "rewind", "--list"); r2.code != 0 || r2.stdout != r.stdout {
		t.Fatalf("--list beside a held session: exit %d\n%s%s", r2.code, r2.stdout, r2.stderr)
	}
	held.Close()

	if r := runPlyHome(t, dir, home, nil, "rewind", "9"); r.code != 42 || !strings.Contains(r.stderr, "no prompt 9") {
		t.Fatalf("bad N: exit %d, %s", r.code, r.stderr)
	}

	// Rewind to before prompt 2: the state after prompt 1, with the
	// ignored file made since left alone.
	r = runPlyHome(t, dir, home, nil, "rewind", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "two: shell") {
		t.Fatalf("rewind 2: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := snaps[1]
	want["build/y.o"] = ignored
	sameTree(t, "after rewind 2", treeOf(t, dir), want)

	if r := runPlyHome(t, dir, home, nil, "rewind", "--undo"); r.code != 0 {
		t.Fatalf("undo: exit %d %s", r.code, r.stderr)
	}
	sameTree(t, "after undo", treeOf(t, dir), snaps[3])

	if r := runPlyHome(t, dir, home, nil, "rewind", "2"); r.code != 0 {
		t.Fatalf("rewind 2 again: exit %d %s", r.code, r.stderr)
	}
	if r := runPlyHome(t, dir, home, srv, "-y", "--continue", "-p", "again"); r.code != 0 {
		t.Fatalf("continue after the rewind: exit %d %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	var texts []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" {
			texts = append(texts, m.Text())
		}
	}
	got := strings.Join(texts, " | ")
	// The last message is the new prompt, with the note of what the
	// first prompt's work changed since the snapshot the model saw.
	if !strings.Contains(got, "one: edit and create") || strings.Contains(got, "two: shell") || strings.Contains(got, "three") ||
		!strings.HasPrefix(texts[len(texts)-1], "again") {
		t.Fatalf("history after the rewind: %s", got)
	}

	// Code only, to the very first prompt.
	if r := runPlyHome(t, dir, home, nil, "rewind", "1", "--code"); r.code != 0 {
		t.Fatalf("rewind 1 --code: exit %d %s", r.code, r.stderr)
	}
	want = snaps[0]
	want["build/y.o"] = ignored
	sameTree(t, "after rewind 1 --code", treeOf(t, dir), want)
}

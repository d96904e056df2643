package sysprompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInstructionsFromRootToCwd(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(repo, "svc", "api")
	write(t, filepath.Join(home, "PLY.md"), "global: be brief")
	write(t, filepath.Join(repo, "AGENTS.md"), "root agents")
	write(t, filepath.Join(repo, "PLY.md"), "root ply")
	write(t, filepath.Join(repo, "svc", "QWEN.md"), "svc qwen")
	write(t, filepath.Join(cwd, "CLAUDE.md"), "api claude")
	write(t, filepath.Join(filepath.Dir(repo), "PLY.md"), "above the repo: never read")
	write(t, filepath.Join(repo, "other", "PLY.md"), "a sibling: never read")

	got := LoadInstructions(home, cwd, nil)
	var contents []string
	for _, i := range got {
		contents = append(contents, i.Content)
	}
	want := "global: be brief|root ply|root agents|svc qwen|api claude"
	if strings.Join(contents, "|") != want {
		t.Fatalf("got %q, want %q", strings.Join(contents, "|"), want)
	}
	prompt := Build(Env{Workspace: cwd, Instructions: got})
	if strings.Index(prompt, "root ply") > strings.Index(prompt, "api claude") {
		t.Fatal("the nearest file must come last")
	}
}

func TestInstructionsWithoutRepoReadOnlyCwd(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "x")
	write(t, filepath.Join(dir, "PLY.md"), "parent")
	write(t, filepath.Join(sub, "AGENTS.md"), "here")
	got := LoadInstructions("", sub, nil)
	if len(got) != 1 || got[0].Content != "here" {
		t.Fatalf("got %+v", got)
	}
}

func TestInstructionsCapped(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "PLY.md"), strings.Repeat("x", MaxInstructionBytes+100))
	write(t, filepath.Join(dir, "AGENTS.md"), "dropped")
	got := LoadInstructions("", dir, nil)
	if len(got) != 1 || !strings.Contains(got[0].Content, "capped") {
		t.Fatalf("got %d files", len(got))
	}
}

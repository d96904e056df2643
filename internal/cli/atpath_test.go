package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

func TestExpandAtPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n", 0o644)
	writeFile(t, filepath.Join(dir, ".gitignore"), "secret.env\n", 0o644)
	writeFile(t, filepath.Join(dir, "secret.env"), "TOKEN=x\n", 0o644)
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("y", maxAtFile+1), 0o644)
	outside := filepath.Join(t.TempDir(), "out.txt")
	writeFile(t, outside, "outside\n", 0o644)
	if err := os.WriteFile(filepath.Join(dir, "bin"), []byte{0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := expandAtPaths("look at @main.go, @secret.env @big.txt @bin @"+outside+" and mail me@example.com", ws)
	for _, want := range []string{"--- Content from @main.go ---\npackage main\n--- End of @main.go ---",
		"@secret.env is ignored", "@big.txt is", "@bin is a binary"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TOKEN=x") || strings.Contains(got, "outside\n") {
		t.Errorf("ignored or outside content leaked:\n%s", got)
	}
	if p := "no references here"; expandAtPaths(p, ws) != p {
		t.Error("a prompt without references must be unchanged")
	}
}

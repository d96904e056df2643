package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An untrusted folder's run names the project's custom commands it left
// out.
func TestUntrustedNoticeNamesCommands(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, ".ply", "commands", "a.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("do it"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := IgnoredConfig(ws); !strings.Contains(got, "1 command in .ply/commands") {
		t.Fatalf("the untrusted notice does not name the commands: %q", got)
	}
}

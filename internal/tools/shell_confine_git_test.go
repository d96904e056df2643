package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A filter driver and a textconv program that the workspace repository's
// configuration names do not run for a confined git command, though they
// do for the same command run unconfined.
func TestShellConfinedGitDrivers(t *testing.T) {
	t.Parallel()
	requireReadOnlyProfile(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	sh, ws := shellTestTool(t)
	setup := exec.Command("sh", "-c", `git init -q && printf '*.txt filter=x diff=y\n' > .gitattributes && printf 'one\n' > a.txt &&
git add . && git -c user.name=a -c user.email=a@example.com commit -qm init &&
git config filter.x.clean 'echo FILTER-RAN >&2; cat' && git config diff.y.textconv 'echo TEXTCONV-RAN >&2; cat' && printf 'two\n' > a.txt`)
	setup.Dir = ws.Root()
	setup.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	const cmd = "git status --short; git diff"
	raw, _ := json.Marshal(map[string]any{"command": cmd})
	plain, err := sh.Execute(context.Background(), raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.Output, "FILTER-RAN") || !strings.Contains(plain.Output, "TEXTCONV-RAN") {
		t.Fatalf("unconfined, the drivers did not run:\n%s", plain.Output)
	}
	res := shellConfinedRun(t, sh, cmd)
	if strings.Contains(res.Output, "RAN") || !strings.Contains(res.Output, "+two") {
		t.Errorf("confined:\n%s", res.Output)
	}
}

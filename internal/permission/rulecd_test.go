package permission

import (
	"path/filepath"
	"testing"

	"github.com/plyhq/ply/internal/scheduler"
)

// repoWorkspace is testWorkspace with a committed bare repository
// (testdata/x.git, whose config could name a diff.external program) and a
// nested repository with a work tree (vendor/lib).
func repoWorkspace(t *testing.T) string {
	t.Helper()
	root, _ := testWorkspace(t)
	bare := filepath.Join(root, "testdata/x.git")
	for _, d := range []string{"objects", "refs", "hooks"} {
		mkdir(t, filepath.Join(bare, d))
	}
	write(t, filepath.Join(bare, "HEAD"))
	write(t, filepath.Join(bare, "config"))
	mkdir(t, filepath.Join(root, "vendor/lib/.git"))
	write(t, filepath.Join(root, "vendor/lib/.git/config"))
	write(t, filepath.Join(root, "vendor/lib/x.go"))
	return root
}

// TestAllowRulesFollowDirectoryChanges: a line that changes directory
// before a command is judged in that directory, and git run in another
// repository than the workspace's is not covered by a pattern rule.
func TestAllowRulesFollowDirectoryChanges(t *testing.T) {
	root := repoWorkspace(t)
	tests := []struct {
		allow    []string
		cmd, dir string
		want     scheduler.Verdict
	}{
		{allow: []string{"Bash(git *)"}, cmd: "git diff A B", want: allowV},
		{allow: []string{"Bash(git *)"}, cmd: "cd testdata/x.git && git diff A B", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "cd testdata/x.git; git diff A B", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "pushd testdata/x.git && git diff A B", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "(cd testdata/x.git && git diff A B)", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "cd vendor/lib && git commit -m x", want: askV},
		{allow: []string{"Bash(git *)", "Bash(cd *)"}, cmd: "cd testdata/x.git && git diff A B", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "git diff A B", dir: "testdata/x.git", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "git commit -m x", dir: "vendor/lib", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "git commit -m x", dir: "vendor/lib/.git", want: askV},
		{allow: []string{"Bash(git *)"}, cmd: "git commit -m x", dir: "src", want: allowV},
		{allow: []string{"Bash(npm test)"}, cmd: "cd src && npm test", want: allowV},
		{allow: []string{"Bash(npm test)"}, cmd: "cd src && cat main.go && npm test", want: allowV},
		// After the cd, outdir/ is src/outdir, a link out of the workspace.
		{allow: []string{"Bash(npm test)"}, cmd: "cd src && cat outdir/target.txt && npm test", want: askV},
		// Two changes: where the second lands is not known statically.
		{allow: []string{"Bash(npm test)"}, cmd: "cd src; cd outdir; npm test", want: askV},
		{allow: []string{"Bash(npm test)"}, cmd: "cd src && popd && npm test", want: askV},
		{allow: []string{"Bash(npm test)"}, cmd: "cd ~ && npm test", want: askV},
		// The shell expands the tilde: the file is the home directory's.
		{allow: []string{"Bash(npm test)"}, cmd: "head ~/.ssh/id_rsa && npm test", want: askV},
		{allow: []string{"Bash(npm test)"}, cmd: "head ~ && npm test", want: askV},
	}
	for _, tt := range tests {
		p := newPolicy(t, root, ModeDefault, tt.allow, nil, nil)
		a := args{"command": tt.cmd}
		if tt.dir != "" {
			a["directory"] = tt.dir
		}
		if v, reason := p.Check(t.Context(), call(t, ToolShell, a)); v != tt.want {
			t.Errorf("%v: %q in %q = %s (%s), want %s", tt.allow, tt.cmd, tt.dir, verdictName(v), reason, verdictName(tt.want))
		}
	}
}

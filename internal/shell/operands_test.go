package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestPathOperands(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"cat", ".env"}, []string{".env"}},
		{[]string{"grep", "-rn", "PASSWORD", "."}, []string{".", "n"}},
		{[]string{"grep", "-e", "PASSWORD", ".env"}, []string{".env"}},
		{[]string{"sed", "-n", "p", ".env"}, []string{".env"}},
		{[]string{"sort", "-k", "2", "--output=out", "in"}, []string{"in", "out"}},
		{[]string{"git", "show", "HEAD:.env"}, []string{"show", "HEAD:.env", ".env"}},
		{[]string{"echo", ".env"}, nil},
		{[]string{"cat", "--", "-x"}, []string{"-x"}},
	}
	for _, tt := range tests {
		if got := PathOperands(tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("PathOperands(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestSearches(t *testing.T) {
	tests := []struct {
		args []string
		want Search
	}{
		{[]string{"grep", "-r", "x"}, Search{Recursive: true, WorkingDir: true}},
		{[]string{"grep", "-rn", "x", "src"}, Search{Recursive: true}},
		{[]string{"grep", "x", "f"}, Search{}},
		{[]string{"rg", "x"}, Search{Recursive: true, WorkingDir: true}},
		{[]string{"rg", "-e", "x", "docs"}, Search{Recursive: true}},
		{[]string{"git", "grep", "x"}, Search{Recursive: true, WorkingDir: true}},
		{[]string{"git", "status"}, Search{Recursive: true}},
		{[]string{"cat", "f"}, Search{}},
		{[]string{"ls", "-R"}, Search{}},
		{[]string{"tar", "czf", "x.tgz", "."}, Search{Recursive: true}},
	}
	for _, tt := range tests {
		if got := Searches(tt.args); got != tt.want {
			t.Errorf("Searches(%q) = %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestOperandsKnown(t *testing.T) {
	for cmd, want := range map[string]bool{
		"cat .env":             true,
		"cat *.go":             true,
		"echo $HOME":           true,
		"cat $F":               false,
		"cat < $F":             false,
		"$X .env":              false,
		"find . | xargs cat":   false,
		"env cat $F":           false,
		"cat {a,b}":            false,
		"echo $(cat $F)":       false,
		"cat 'unterminated":    false,
		"printf '%s' \"$X\"":   true,
		"grep -r \"$P\" src":   false,
		"git log --format=%an": true,
	} {
		if got := OperandsKnown(cmd); got != want {
			t.Errorf("OperandsKnown(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// FuzzOperands checks that the operand helpers never panic and that
// what PathOperands returns is drawn from the command's words.
func FuzzOperands(f *testing.F) {
	for _, s := range []string{"cat .env", "grep -r x .", "sed -n p f", "git show HEAD:.env", "sort -o o -k 2 f", "rg -e x --", "cd x && cat $y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		OperandsKnown(command)
		cmds, err := SimpleCommands(command)
		if err != nil {
			return
		}
		for _, sc := range cmds {
			Searches(sc.Args)
			for _, op := range PathOperands(sc.Args) {
				if !slices.ContainsFunc(sc.Args, func(a string) bool { return strings.Contains(a, op) }) {
					t.Fatalf("operand %q of %q is not part of any word", op, sc.Args)
				}
			}
		}
	})
}

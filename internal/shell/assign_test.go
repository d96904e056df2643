package shell

import (
	"testing"
)

// Every construct that assigns a variable must name one that provably
// changes nothing but the line's own expansions; otherwise the line is
// neither read-only nor clear to rules.
func TestAssignmentsOfUnprovenVariablesAreOpaque(t *testing.T) {
	opaque := []string{
		"for PATH in .; do ls; done",
		"for HOME in .; do git diff; done",
		"for CDPATH in /etc; do cd ssh && ls; done",
		"for PATH in .; do git status; done",
		"for IFS in x; do echo a; done",
		"for LD_PRELOAD in ./x.so; do ls; done",
		"for PATH; do ls; done",
		"for http_proxy in x; do git status; done",
		"for auto_resume in x; do ls; done",
		"for histchars in x; do ls; done",
		"for Path in .; do ls; done",
		"select PATH in .; do ls; done",
		"read PATH < f",
		"read -r -a PATH < f",
		"read < f",
		"read -p x -t 1 -u 3 -d : HOME",
		"mapfile PATH < f",
		"mapfile < f",
		"readarray -t HOME < f",
		"getopts ab opt",
		"printf -v PATH x",
		"printf -vPATH x",
		"let PATH=1",
		"(( PATH = 1 ))",
		"echo $((PATH=1))",
		"for ((PATH=0; PATH<1; PATH++)); do ls; done",
		"declare PATH=.",
		"declare -x foo=1",
		"declare -n ref=PATH; for ref in .; do ls; done",
		"local -n ref=PATH",
		"typeset PATH=.",
		"typeset -n ref=PATH",
		"export PATH=.",
		"export foo=1",
		"export -n HOME",
		"readonly PATH",
		"local HOME=.",
		"echo ${PATH:=.}",
		"echo ${PATH=.}",
		"ls {PATH}>/dev/null",
		"exec {HOME}</dev/null",
		"unset PATH",
		"unset -v IFS",
		"unset -n HOME",
		"wait -p PATH",
		"shopt -s expand_aliases",
		"shopt -s dotglob",
		"shopt -u globskipdots",
		"shopt -s -o allexport",
		"set -a",
		"set -k",
		"set -o allexport",
		"set -o keyword",
		"set +o posix",
		"set -B",
		"enable -n echo",
		"enable -f x.so x",
		"builtin read PATH < f",
		"command export PATH=.",
		"builtin declare PATH=.",
		"eval 'for PATH in .; do ls; done'",
		"bash -c 'for PATH in .; do ls; done'",
		"trap 'read PATH' EXIT",
	}
	checkOpaque(t, opaque)
	clear := []string{
		"for f in *.go; do echo $f; done",
		"for plyloopvar in a b; do ls; done",
		"for _x in a; do ls; done",
		"select pick in a b; do echo $pick; done",
		"read -r line < f",
		"read -r -a parts -d : < f",
		"mapfile -t lines < f",
		"printf -v out %s x",
		"declare lines",
		"local count=1",
		"readonly limit=3",
		"echo ${plyvar:=x}",
		"unset plyvar",
		"unset -f ls",
		"set -euo pipefail",
		"set -e -u -x",
		"set +e",
		"set -o errexit -o nounset -o pipefail",
		"set -- a b",
		"set",
		"shopt",
		"shopt -p",
		"shopt -q extglob",
		"enable",
		"enable -a",
		"alias",
		"wait -n",
	}
	checkClear(t, clear)
	for _, cmd := range []string{
		"for f in a b; do echo $f; done",
		"for i in 1 2 3; do echo $i; done",
		"for f in *.go; do echo $f; done",
	} {
		if !IsReadOnly(cmd) {
			t.Errorf("IsReadOnly(%q) = false; want true", cmd)
		}
	}
}

// A variable ply's own environment holds is inherited, and so exported:
// assigning it reaches every program the line runs.
func TestAssignmentOfAnInheritedVariableIsOpaque(t *testing.T) {
	cmd := "for plyinheritedvar in x; do ls; done"
	if _, ok := Opaque(cmd); ok {
		t.Fatalf("Opaque(%q) before the variable is in the environment: want clear", cmd)
	}
	t.Setenv("plyinheritedvar", "1")
	if _, ok := Opaque(cmd); !ok {
		t.Errorf("Opaque(%q) with the variable inherited = false; want opaque", cmd)
	}
	if IsReadOnly(cmd) {
		t.Errorf("IsReadOnly(%q) = true with the variable inherited", cmd)
	}
}

// allexport in SHELLOPTS, which bash imports at start, exports every
// assignment: then no name is harmless.
func TestAllexportFromTheEnvironmentMakesEveryAssignmentOpaque(t *testing.T) {
	t.Setenv("SHELLOPTS", "braceexpand:allexport:hashall")
	if _, ok := Opaque("for plyloopvar in x; do ls; done"); !ok {
		t.Error("a loop variable under an inherited allexport is not opaque")
	}
}

func TestHarmlessVariable(t *testing.T) {
	for name, want := range map[string]bool{
		"f": true, "_f": true, "line2": true, "plyvar": true,
		"": false, "PATH": false, "Path": false, "2x": false, "a-b": false, "a[1]": false,
		"http_proxy": false, "https_proxy": false, "no_proxy": false, "all_proxy": false,
		"ftp_proxy": false, "auto_resume": false, "histchars": false, "_": false,
	} {
		if got := harmlessVariable(name); got != want {
			t.Errorf("harmlessVariable(%q) = %v, want %v", name, got, want)
		}
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// Claude Code's names for ply's flags parse as ply's.
func TestClaudeCodeFlagNames(t *testing.T) {
	o, err := Parse([]string{"--print", "hi", "--permission-mode", "acceptEdits", "--allowedTools", "Read,Bash(git:*)",
		"--disallowedTools", "web_fetch", "--add-dir", "/a", "--max-turns", "3", "--verbose"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Prompt != "hi" || o.ApprovalMode != "acceptEdits" || strings.Join(o.AllowedTools, " ") != "Read Bash(git:*)" ||
		strings.Join(o.ExcludeTools, " ") != "web_fetch" || strings.Join(o.IncludeDirs, " ") != "/a" || o.MaxSessionTurns != 3 || !o.Verbose {
		t.Fatalf("parsed %+v", o)
	}
	help := usage()
	for _, w := range []string{"--permission-mode", "--allowedTools", "--add-dir", "--max-turns", "--print"} {
		if !strings.Contains(help, w) {
			t.Errorf("--help does not name %s", w)
		}
	}
}

// --permission-mode takes Claude Code's mode names: the session runs in
// ply's mode of the same meaning.
func TestPermissionModeNames(t *testing.T) {
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPly(t, t.TempDir(), srv, "", "--permission-mode", "acceptEdits", "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if sys := systemText(t, srv.Requests()[0]); !strings.Contains(sys, "# Approval mode: auto-edit\n") {
		t.Fatalf("the session is not in auto-edit:\n%s", sys)
	}
}

// A misspelt flag names the flag meant; `ply version` prints the version.
func TestFlagSuggestionAndVersion(t *testing.T) {
	r := runPly(t, t.TempDir(), nil, "", "--approval-mod", "yolo", "-p", "x")
	if r.code != 42 || !strings.Contains(r.stderr, "did you mean --approval-mode?") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = runPly(t, t.TempDir(), nil, "", "version")
	if r.code != 0 || r.stdout != versionLine(Version, Commit, buildInfo())+"\n" || !strings.HasPrefix(r.stdout, "ply "+Version+" (commit ") {
		t.Fatalf("ply version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A misspelt settings key and a hook event ply never fires are named on
// stderr, with what was meant; the run goes on.
func TestSettingsTyposWarned(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `{"approvalMod": "yolo", "hooks": {"PreToolUs": [{"command": "true"}]}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fp.New(t, fp.Turn{fp.Text("ok")})
	r := runPlyHome(t, t.TempDir(), home, srv, "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{`unknown setting "approvalMod" is ignored (did you mean "approvalMode"?)`, `ply never fires "PreToolUs", so its hooks do not run (did you mean "PreToolUse"?)`} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

// A headless run that refused calls says on stderr which, and how to
// allow them.
func TestHeadlessDenialHint(t *testing.T) {
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("e1", "write_file", `{"file_path":"a.txt","content":"b"}`)},
		fp.Turn{fp.Text("done")},
	)
	r := runPly(t, t.TempDir(), srv, "", "-p", "write it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, w := range []string{"1 tool call was refused (write_file)", "--approval-mode auto-edit", "--allowed-tools", "--yolo"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	srv = fp.New(t, fp.Turn{fp.Text("nothing to do")})
	if r := runPly(t, t.TempDir(), srv, "", "-p", "hi"); strings.Contains(r.stderr, "refused") {
		t.Errorf("a run that refused nothing: %s", r.stderr)
	}
}

// A command the wall-time limit stops keeps what it printed, and the
// transcript (what a --continue sends the model) says it was the limit,
// not the user.
func TestWallTimeKeepsPartialOutput(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	srv := fp.New(t, fp.Turn{fp.ToolCall("s1", "run_shell_command", `{"command":"echo started-work; sleep 60"}`)})
	r := runPlyHome(t, dir, home, srv, "-y", "--max-wall-time", "3s", "-p", "go")
	if r.code == 0 {
		t.Fatalf("exit 0 past the wall-time limit\n%s", r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcripts %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Tool call was stopped: wall-time limit reached. What it printed before it stopped:", "started-work"} {
		if !strings.Contains(string(b), w) {
			t.Errorf("the transcript lacks %q:\n%s", w, b)
		}
	}
}

package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// skillLayout puts a skill in every location ply reads (the user's
// folder under PLY_HOME, and the project's .ply, .claude and .qwen
// folders) and a malformed one, on disk.
func skillLayout(t *testing.T) (dir, home string) {
	t.Helper()
	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	put := func(root, name, text string) {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(home, "skills"), "stamp", "---\nname: stamp\ndescription: Stamp a release with a marker file.\nallowed-tools: Bash(touch:*)\n---\nCreate the marker with touch, then read notes.md from this folder.\n")
	if err := os.WriteFile(filepath.Join(home, "skills", "stamp", "notes.md"), []byte("release notes kept with the skill\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	put(filepath.Join(dir, ".ply", "skills"), "plyproj", "---\nname: plyproj\ndescription: ply project skill\n---\nbody\n")
	put(filepath.Join(dir, ".claude", "skills"), "claudeproj", "---\nname: claudeproj\ndescription: Claude Code project skill\n---\nbody\n")
	put(filepath.Join(dir, ".qwen", "skills"), "qwenproj", "---\nname: qwenproj\ndescription: Qwen Code project skill\n---\nbody\n")
	put(filepath.Join(dir, ".claude", "skills"), "broken", "---\nname: broken\ndescription: [unclosed\nmore: x: y\n---\n")
	return dir, home
}

func initSkills(t *testing.T, stdout string) []string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var m struct {
			Type, Subtype string
			Skills        []string `json:"skills"`
			Slash         []string `json:"slash_commands"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Type == "system" && m.Subtype == "init" {
			if !reflect.DeepEqual(m.Skills, m.Slash) {
				t.Errorf("slash_commands %v, skills %v", m.Slash, m.Skills)
			}
			return m.Skills
		}
	}
	t.Fatalf("no init message in:\n%s", stdout)
	return nil
}

// The model loads a skill through the skill tool; the skill's folder
// becomes readable. No one can approve the grant of its allowed-tools in
// a headless run, so they are not granted, and the model is told so.
func TestSkillLoadedByModel(t *testing.T) {
	dir, home := skillLayout(t)
	marker := filepath.Join(dir, "stamped")
	notes := filepath.Join(home, "skills", "stamp", "notes.md")
	touch := mustJSON(map[string]any{"command": "touch " + marker})
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("early", "run_shell_command", touch)},
		fp.Turn{fp.ToolCall("early-read", "read_file", mustJSON(map[string]any{"file_path": notes}))},
		fp.Turn{fp.ToolCall("load", "skill", `{"skill":"stamp","args":"v1.2"}`)},
		fp.Turn{fp.ToolCall("touch", "run_shell_command", touch)},
		fp.Turn{fp.ToolCall("read", "read_file", mustJSON(map[string]any{"file_path": notes}))},
		fp.Turn{fp.Text("stamped")},
	)
	r := runPlyIn(t, dir, home, srv, "", "--trust-workspace", "-o", "stream-json", "-p", "stamp the release")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := initSkills(t, r.stdout); !reflect.DeepEqual(got, []string{"claudeproj", "plyproj", "qwenproj", "stamp"}) {
		t.Errorf("init skills = %v", got)
	}
	bad := filepath.Join(dir, ".claude", "skills", "broken", "SKILL.md")
	if !strings.Contains(r.stderr, "ply: warning: skills: "+bad+":") {
		t.Errorf("the malformed skill is not reported with its file and line:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	desc := toolDescription(t, reqs[0].Body, "skill")
	for _, want := range []string{"- stamp: Stamp a release with a marker file.", "- claudeproj: Claude Code project skill", "- qwenproj:", "- plyproj:"} {
		if !strings.Contains(desc, want) {
			t.Errorf("the skill tool's description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "Create the marker") || strings.Contains(desc, "broken") {
		t.Errorf("the description carries a body or the malformed skill:\n%s", desc)
	}
	results := toolResults(srv)
	if !strings.Contains(results["early"], "approv") || !strings.Contains(results["early-read"], "outside") {
		t.Errorf("before loading: shell %q, read %q", results["early"], results["early-read"])
	}
	if !strings.Contains(results["load"], "Create the marker with touch") || !strings.Contains(results["load"], "Base directory for this skill: ") {
		t.Errorf("skill result = %q", results["load"])
	}
	if !strings.Contains(results["load"], "were not granted") {
		t.Errorf("the load does not say its allowed-tools were not granted: %q", results["load"])
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the skill's allowed tool ran unapproved; result %q", results["touch"])
	}
	if !strings.Contains(results["read"], "release notes kept with the skill") {
		t.Errorf("the skill's folder is not readable after loading: %q", results["read"])
	}
}

// A rule that allows the skill tool approves what loading a skill
// grants: its allowed-tools then run unasked.
func TestSkillGrantAllowedByRule(t *testing.T) {
	dir, home := skillLayout(t)
	marker := filepath.Join(dir, "stamped")
	touch := mustJSON(map[string]any{"command": "touch " + marker})
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("load", "skill", `{"skill":"stamp","args":"v1.2"}`)},
		fp.Turn{fp.ToolCall("touch", "run_shell_command", touch)},
		fp.Turn{fp.Text("stamped")},
	)
	r := runPlyIn(t, dir, home, srv, "", "--trust-workspace", "--allowed-tools", "skill", "-o", "stream-json", "-p", "stamp the release")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	results := toolResults(srv)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the skill's allowed tool did not run: %v; load %q, touch %q", err, results["load"], results["touch"])
	}
}

// An untrusted workspace's skills are not loaded, and the notice says so.
func TestUntrustedSkillsNotLoaded(t *testing.T) {
	dir, home := skillLayout(t)
	srv := fp.New(t, fp.Turn{fp.ToolCall("load", "skill", `{"skill":"plyproj"}`)}, fp.Turn{fp.Text("ok")})
	r := runPlyIn(t, dir, home, srv, "", "-o", "stream-json", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := initSkills(t, r.stdout); !reflect.DeepEqual(got, []string{"stamp"}) {
		t.Errorf("init skills = %v", got)
	}
	if !strings.Contains(r.stderr, "2 skills in .claude/skills") || !strings.Contains(r.stderr, "1 skill in .qwen/skills") {
		t.Errorf("notice:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "broken") {
		t.Errorf("the untrusted project's skills were parsed:\n%s", r.stderr)
	}
	results := toolResults(srv)
	if !strings.Contains(results["load"], `skill "plyproj" not found`) {
		t.Errorf("load result = %q", results["load"])
	}
}

func toolDescription(t *testing.T, body map[string]any, name string) string {
	t.Helper()
	list, _ := body["tools"].([]any)
	for _, d := range list {
		fn, _ := d.(map[string]any)["function"].(map[string]any)
		if fn["name"] == name {
			s, _ := fn["description"].(string)
			return s
		}
	}
	t.Fatalf("no tool %s in the request", name)
	return ""
}

// A skill's folder stays readable for the whole session, across a resume.
func TestSkillFolderReadableAfterResume(t *testing.T) {
	dir, home := skillLayout(t)
	notes := filepath.Join(home, "skills", "stamp", "notes.md")
	srv := fp.New(t,
		fp.Turn{fp.ToolCall("load", "skill", `{"skill":"stamp"}`)},
		fp.Turn{fp.Text("loaded")},
		fp.Turn{fp.ToolCall("read", "read_file", mustJSON(map[string]any{"file_path": notes}))},
		fp.Turn{fp.Text("read")},
	)
	if r := runPlyHome(t, dir, home, srv, "-p", "load stamp"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := runPlyHome(t, dir, home, srv, "--continue", "-p", "read the notes"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := toolResults(srv)["read"]; !strings.Contains(got, "release notes kept with the skill") {
		t.Errorf("after the resume: %q", got)
	}
}

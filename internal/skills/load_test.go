package skills

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

// writeSkill writes dir/name/SKILL.md with text.
func writeSkill(t *testing.T, dir, name, text string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func skillText(name, desc, extra string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + extra + "---\nDo the " + name + " thing. Args: $ARGUMENTS\n"
}

// layout makes a home and a workspace with a skill in every location, a
// malformed one and a duplicate name.
func layout(t *testing.T) (home, ws string) {
	home, ws = t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(home, "skills"), "mine", skillText("mine", "my own skill", ""))
	writeSkill(t, filepath.Join(ws, ".ply", "skills"), "plyproj", skillText("plyproj", "a ply project skill", "allowed-tools: Bash(make:*)\n"))
	writeSkill(t, filepath.Join(ws, ".claude", "skills"), "claudeproj", skillText("claudeproj", "a Claude Code skill", ""))
	writeSkill(t, filepath.Join(ws, ".qwen", "skills"), "qwenproj", skillText("qwenproj", "a Qwen Code skill", ""))
	writeSkill(t, filepath.Join(ws, ".claude", "skills"), "broken", "---\nname: broken\ndescription: a: b\n---\n")
	writeSkill(t, filepath.Join(ws, ".qwen", "skills"), "dup", skillText("mine", "shadowed by the user's", ""))
	// Not skills: a file in the root, a folder without SKILL.md.
	os.WriteFile(filepath.Join(home, "skills", "README.md"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".ply", "skills", "empty"), 0o755)
	return home, ws
}

func TestLoadEveryLocation(t *testing.T) {
	home, ws := layout(t)
	list, errs := Load(Roots(home, ws, true))
	var names, sources []string
	for _, s := range list {
		names = append(names, s.Name)
		sources = append(sources, s.Source)
	}
	if want := []string{"claudeproj", "mine", "plyproj", "qwenproj"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if want := []string{"project", "user", "project", "project"}; !reflect.DeepEqual(sources, want) {
		t.Errorf("sources = %v", sources)
	}
	if len(errs) != 2 {
		t.Fatalf("errors = %v, want the malformed one and the duplicate", errs)
	}
	var pe *ParseError
	bad := filepath.Join(ws, ".claude", "skills", "broken", FileName)
	if !errors.As(errs[0], &pe) || pe.Path != bad || pe.Line != 3 || !strings.HasPrefix(errs[0].Error(), bad+":3: ") {
		t.Errorf("malformed: %v", errs[0])
	}
	if !strings.Contains(errs[1].Error(), `skill "mine"`) || !strings.Contains(errs[1].Error(), "left out") {
		t.Errorf("duplicate: %v", errs[1])
	}

	// A project skill folder that links outside the project is left
	// out; a user's linked skill folder is the user's choice.
	outside := writeSkill(t, t.TempDir(), "escape", skillText("escape", "links out", ""))
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, ".ply", "skills", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(home, "skills", "linked")); err != nil {
		t.Fatal(err)
	}
	list, errs = Load(Roots(home, ws, true))
	names = nil
	for _, s := range list {
		names = append(names, s.Name)
	}
	if want := []string{"claudeproj", "escape", "mine", "plyproj", "qwenproj"}; !reflect.DeepEqual(names, want) || list[1].Source != "user" {
		t.Errorf("with links: %v", names)
	}
	if len(errs) != 3 || !strings.Contains(errs[0].Error(), "leads outside") {
		t.Errorf("with links: %v", errs)
	}

	// An untrusted workspace: only the user's skills.
	list, errs = Load(Roots(home, ws, false))
	if len(list) != 2 || list[1].Name != "mine" || len(errs) != 0 {
		t.Errorf("untrusted: %v %v", list, errs)
	}
}

type grants struct{ granted map[string][]string }

func (g *grants) Grant(source string, rules []string) error {
	g.granted[source] = rules
	return nil
}
func (g *grants) Revoke(source string) { delete(g.granted, source) }

func TestToolLoadsSkill(t *testing.T) {
	home, ws := layout(t)
	list, _ := Load(Roots(home, ws, true))
	w, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &grants{granted: map[string][]string{}}
	set := NewSet(list, w, g)
	tool := NewTool(set)

	desc := tool.Description()
	for _, line := range []string{"- mine: my own skill\n", "- plyproj: a ply project skill\n", "- qwenproj: a Qwen Code skill\n"} {
		if !strings.Contains(desc, line) {
			t.Errorf("description lacks %q:\n%s", line, desc)
		}
	}
	if strings.Contains(desc, "Do the") {
		t.Error("the description carries a skill's body")
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.Schema(), &schema); err != nil || schema["required"].([]any)[0] != "skill" {
		t.Errorf("schema %s: %v", tool.Schema(), err)
	}

	inside := filepath.Join(list[2].Dir, FileName) // plyproj
	if _, err := w.ResolveRead(inside); err == nil {
		t.Fatal("the skill folder is readable before loading")
	}
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"skill":"plyproj","args":"release"}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	for _, want := range []string{"Base directory for this skill: " + list[2].Dir, "Do the plyproj thing. Args: release", "Bash(make:*)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if _, err := w.ResolveRead(inside); err != nil {
		t.Errorf("the folder is not readable after loading: %v", err)
	}
	if _, err := w.Resolve(inside); err == nil {
		t.Error("the folder became writable")
	}
	if !reflect.DeepEqual(g.granted["skill plyproj"], []string{"Bash(make:*)"}) || !reflect.DeepEqual(set.Active(), []string{"plyproj"}) {
		t.Errorf("granted %v, active %v", g.granted, set.Active())
	}
	// The user's next prompt ends it; the folder stays readable.
	set.NewTurn()
	if len(g.granted) != 0 || len(set.Active()) != 0 {
		t.Errorf("after the turn: granted %v, active %v", g.granted, set.Active())
	}
	if _, err := w.ResolveRead(inside); err != nil {
		t.Errorf("the folder is not readable for the rest of the session: %v", err)
	}

	res, _ = tool.Execute(context.Background(), json.RawMessage(`{"skill":"nope"}`), nil)
	if !res.IsError || !strings.Contains(res.Output, "available skills: claudeproj, mine, plyproj, qwenproj") {
		t.Errorf("unknown skill: %+v", res)
	}
}

// /name args: the skill is active for the turn its prompt starts, not
// ended by that prompt's own NewTurn.
func TestInvokeByUser(t *testing.T) {
	home, ws := layout(t)
	list, _ := Load(Roots(home, ws, true))
	g := &grants{granted: map[string][]string{}}
	set := NewSet(list, nil, g)
	prompt, err := set.Invoke("plyproj", "v2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(prompt, "/plyproj v2\n\n<skill name=\"plyproj\">") || !strings.Contains(prompt, "Args: v2") {
		t.Errorf("prompt = %q", prompt)
	}
	set.NewTurn() // the prompt is sent
	if g.granted["skill plyproj"] == nil {
		t.Error("the prompt's own turn ended the skill")
	}
	set.NewTurn() // the next prompt
	if len(g.granted) != 0 {
		t.Errorf("still granted: %v", g.granted)
	}
	if _, err := set.Invoke("nope", ""); err == nil {
		t.Error("unknown skill invoked")
	}
	var none *Set
	if none.Names() != nil || none.Active() != nil {
		t.Error("a nil set has skills")
	}
	none.NewTurn()
}

// A resumed session's skills: their folders readable again, nothing
// granted.
func TestReopen(t *testing.T) {
	home, ws := layout(t)
	list, _ := Load(Roots(home, ws, true))
	w, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &grants{granted: map[string][]string{}}
	set := NewSet(list, w, g)
	prompt, _ := NewSet(list, nil, nil).Invoke("qwenproj", "")
	names := LoadedIn([]string{`{"skill":"plyproj"}`, `not json`, `{"skill":"gone"}`}, []string{"hello", prompt})
	if !reflect.DeepEqual(names, []string{"plyproj", "gone", "qwenproj"}) {
		t.Fatalf("loaded = %v", names)
	}
	set.Reopen(names...)
	for _, s := range list {
		_, err := w.ResolveRead(s.Path)
		if want := s.Name == "plyproj" || s.Name == "qwenproj"; (err == nil) != want {
			t.Errorf("%s readable: %v", s.Name, err)
		}
	}
	if len(g.granted) != 0 {
		t.Errorf("granted %v", g.granted)
	}
}

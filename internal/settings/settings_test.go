package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStripJSONC(t *testing.T) {
	cases := map[string]string{
		`{"a": 1, // note, with comma }` + "\n}":          `{"a":1}`,
		`{"a": "// not a comment", /* b */ "b": [1,2,],}`: `{"a":"// not a comment","b":[1,2]}`,
		`{"s": "quote \" /* x */ inside"}`:                `{"s":"quote \" /* x */ inside"}`,
		"/* unterminated":                                 ``,
	}
	for in, want := range cases {
		got := StripJSONC([]byte(in))
		if len(got) != len(in) {
			t.Errorf("%q: length changed", in)
		}
		var v any
		if want == "" {
			continue
		}
		if err := json.Unmarshal(got, &v); err != nil {
			t.Errorf("%q → %q: %v", in, got, err)
			continue
		}
		b, _ := json.Marshal(v)
		if string(b) != want {
			t.Errorf("%q → %s, want %s", in, b, want)
		}
	}
}

func TestProjectOverridesUser(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "settings.json"), `{
		// the user's defaults
		"model": "user-model", "approvalMode": "default",
		"permissions": {"deny": ["Bash(rm *)"]},
	}`)
	write(t, filepath.Join(ws, ".ply", "settings.json"), `{"model": "project-model", "permissions": {"deny": ["Read(.env)"], "allow": ["Bash(git *)"]}}`)
	s, files, err := Load(home, ws, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Name != "project-model" || s.ApprovalMode != "default" || len(files) != 2 {
		t.Fatalf("merged %+v", s)
	}
	if len(s.Permissions.Deny) != 2 || s.Permissions.Allow[0] != "Bash(git *)" {
		t.Fatalf("rules %+v", s.Permissions)
	}
}

func TestBrokenFileReportsLineAndColumn(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	p := filepath.Join(ws, ".ply", "settings.json")
	write(t, p, "{\n  \"model\": \"m\",\n  \"approvalMode\" \"yolo\"\n}")
	_, _, err := Load(home, ws, true)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Path != p || se.Line != 3 || se.Column < 16 {
		t.Fatalf("err = %v (%+v), want line 3 near column 17", err, se)
	}
	write(t, p, `{"model": 42}`)
	_, _, err = Load(home, ws, true)
	if !errors.As(err, &se) || se.Line != 1 {
		t.Fatalf("type error = %v", err)
	}
}

func TestMissingFilesAreFine(t *testing.T) {
	s, files, err := Load(t.TempDir(), t.TempDir(), true)
	if err != nil || len(files) != 0 || s.Model.Name != "" {
		t.Fatalf("%+v %v %v", s, files, err)
	}
}

func FuzzStripJSONC(f *testing.F) {
	f.Add([]byte(`{"a": 1, // c` + "\n}"))
	f.Add([]byte(`/* x */ {"b": "\"//"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := StripJSONC(b)
		if len(out) != len(b) {
			t.Fatalf("length %d → %d", len(b), len(out))
		}
		// Valid JSON without comments or trailing commas is unchanged
		// in meaning.
		var v1, v2 any
		if json.Unmarshal(b, &v1) == nil {
			if err := json.Unmarshal(out, &v2); err != nil {
				t.Fatalf("valid JSON broken: %q → %q", b, out)
			}
		}
	})
}

// An untrusted project's file is not read at all: not its values, and not
// its syntax errors either.
func TestUntrustedProjectIsNotRead(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, "settings.json"), `{"model": "user-model"}`)
	write(t, filepath.Join(ws, ".ply", "settings.json"), `{"model": "project-model", "approvalMode": "yolo",
		"hooks": {"SessionStart": []}, "mcpServers": {"x": {"command": "x"}}, "permissions": {"allow": ["Bash"]}}`)
	s, files, err := Load(home, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Name != "user-model" || s.ApprovalMode != "" || s.Hooks != nil || s.MCPServers != nil ||
		len(s.Permissions.Allow) != 0 || len(files) != 1 || files[0].Path != filepath.Join(home, "settings.json") {
		t.Fatalf("untrusted project leaked in: %+v, files %v", s, files)
	}
	write(t, filepath.Join(ws, ".ply", "settings.json"), `{"model" "broken"`)
	if _, _, err := Load(home, ws, false); err != nil {
		t.Fatalf("an untrusted project's broken file stopped the load: %v", err)
	}
}

func TestDecodeJSONC(t *testing.T) {
	var v struct{ A []string }
	if err := DecodeJSONC("f.json", []byte("{\n // c\n \"a\": [\"x\",],\n}"), &v); err != nil || len(v.A) != 1 {
		t.Fatalf("v %+v err %v", v, err)
	}
	err := DecodeJSONC("f.json", []byte("{\n \"a\": 3\n}"), &v)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Path != "f.json" {
		t.Fatalf("err %v", err)
	}
	if err := DecodeJSONC("f.json", []byte("{} {}"), &v); !errors.As(err, &se) {
		t.Fatalf("trailing content: %v", err)
	}
}

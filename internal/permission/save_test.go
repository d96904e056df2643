package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plyhq/ply/internal/settings"
)

// allowOf decodes permissions.allow as the settings loader reads it.
func allowOf(t testing.TB, src []byte) []string {
	t.Helper()
	var s settings.Settings
	if err := json.Unmarshal(settings.StripJSONC(src), &s); err != nil {
		t.Fatalf("the result does not parse: %v\n%s", err, src)
	}
	return s.Permissions.Allow
}

func TestAppendAllowRules(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty file", "", "{\n  \"permissions\": {\n    \"allow\": [\"Bash(git status:*)\"]\n  }\n}\n"},
		{"empty object", `{}`, `{"permissions": {"allow": ["Bash(git status:*)"]}}`},
		{"no permissions, comments kept",
			"{\n  // the model\n  \"model\": \"m\" /* pinned */\n}\n",
			"{\n  // the model\n  \"model\": \"m\",\n  \"permissions\": {\"allow\": [\"Bash(git status:*)\"]} /* pinned */\n}\n"},
		{"permissions without allow",
			"{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm *)\"] // never\n  }\n}",
			"{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm *)\"],\n    \"allow\": [\"Bash(git status:*)\"] // never\n  }\n}"},
		{"inline list", `{"permissions": {"allow": ["Read"]}}`, `{"permissions": {"allow": ["Read", "Bash(git status:*)"]}}`},
		{"empty list", `{"permissions": {"allow": [ ]}}`, `{"permissions": {"allow": ["Bash(git status:*)" ]}}`},
		{"list on lines, trailing comma and comment",
			"{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\", // reading is fine\n      \"Edit\",\n    ],\n  },\n}\n",
			"{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\", // reading is fine\n      \"Edit\",\n      \"Bash(git status:*)\",\n    ],\n  },\n}\n"},
		{"a comment holding brackets", "{\"permissions\": {\"allow\": [\"Read\" /* ] } */]}}",
			"{\"permissions\": {\"allow\": [\"Read\", \"Bash(git status:*)\" /* ] } */]}}"},
		{"already there", `{"permissions": {"allow": ["Bash(git status:*)"]}}`, `{"permissions": {"allow": ["Bash(git status:*)"]}}`},
		{"key case as the loader reads it", `{"Permissions": {"Allow": []}}`, `{"Permissions": {"Allow": ["Bash(git status:*)"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := appendAllowRules([]byte(tc.src), []string{"Bash(git status:*)"})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
			if changed != (tc.src != tc.want) {
				t.Fatalf("changed = %v", changed)
			}
			if a := allowOf(t, got); !slices.Contains(a, "Bash(git status:*)") {
				t.Fatalf("allow is %q", a)
			}
		})
	}
}

func TestAppendAllowRulesRefuses(t *testing.T) {
	for _, src := range []string{
		`[1]`,
		`{"permissions": []}`,
		`{"permissions": {"allow": "Read"}}`,
		`{"permissions": {"allow": [1]}}`,
		`{"permissions": {"allow": [`,
	} {
		if out, _, err := appendAllowRules([]byte(src), []string{"Read"}); err == nil {
			t.Errorf("%s: no error, gave %s", src, out)
		}
	}
}

// TestSaveAllowRules saves twice to a new file under a missing directory,
// then to a file with comments: the second save adds only the new rule,
// and the comments and the file's mode survive.
func TestSaveAllowRules(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".ply", "settings.json")
	if err := SaveAllowRules(path, []string{"Bash(git status:*)"}); err != nil {
		t.Fatal(err)
	}
	if err := SaveAllowRules(path, []string{"Bash(git status:*)", "edit"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if a := allowOf(t, b); !slices.Equal(a, []string{"Bash(git status:*)", "edit"}) {
		t.Fatalf("allow is %q:\n%s", a, b)
	}

	user := filepath.Join(dir, "user.json")
	const src = "{\n  // keep me\n  \"model\": \"m\",\n  \"permissions\": {\"allow\": [\"Read\"]}\n}\n"
	if err := os.WriteFile(user, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveAllowRules(user, []string{"WebFetch(domain:example.com)"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(user)
	fi, _ := os.Stat(user)
	if !strings.Contains(string(b), "// keep me") || fi.Mode().Perm() != 0o600 ||
		!slices.Equal(allowOf(t, b), []string{"Read", "WebFetch(domain:example.com)"}) {
		t.Fatalf("mode %v:\n%s", fi.Mode(), b)
	}
	if err := os.WriteFile(user, []byte(`{"permissions": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveAllowRules(user, []string{"Read"}); err == nil || !strings.Contains(err.Error(), user) {
		t.Fatalf("a bad file: %v", err)
	}
	if b, _ := os.ReadFile(user); string(b) != `{"permissions": 1}` {
		t.Fatalf("a bad file was changed: %s", b)
	}
}

// FuzzAppendAllowRules: whatever settings file parses, adding a rule
// gives a file that parses, whose allow list is the old one plus the rule,
// and whose other settings are unchanged.
func FuzzAppendAllowRules(f *testing.F) {
	for _, s := range []string{"", "{}", `{"model":"m"}`, "{\n // c\n \"permissions\": {\"deny\": [\"x\"],},\n}",
		"{\"permissions\": {\"allow\": [\n  \"a\", /* ] */\n]}}", `{"permissions":{"allow":["Read"]},"permissions":{"ask":[]}}`} {
		f.Add(s, "Bash(git status:*)")
	}
	f.Fuzz(func(t *testing.T, src, rule string) {
		var before map[string]any
		clean := settings.StripJSONC([]byte(src))
		if strings.TrimSpace(string(clean)) != "" && json.Unmarshal(clean, &before) != nil {
			return // not a settings file
		}
		out, _, err := appendAllowRules([]byte(src), []string{rule})
		if err != nil {
			return // refused: permissions or allow of another type
		}
		var after map[string]any
		if err := json.Unmarshal(settings.StripJSONC(out), &after); err != nil {
			t.Fatalf("the result does not parse: %v\n%q\n%q", err, src, out)
		}
		if a := allowOf(t, out); !slices.Contains(a, rule) {
			t.Fatalf("allow %q lacks %q:\n%q", a, rule, out)
		}
		for k, v := range before {
			if strings.EqualFold(k, "permissions") {
				continue
			}
			if b1, _ := json.Marshal(v); string(b1) != mustJSON(after[k]) {
				t.Fatalf("%s changed:\n%q\n%q", k, src, out)
			}
		}
	})
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestSaveAllowRulesRefusesLinks: a settings file or .ply directory that
// is a symbolic link (a cloned repository's, say) is not written through.
func TestSaveAllowRulesRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "settings.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	linkedDir := filepath.Join(dir, "a", ".ply")
	linkedFile := filepath.Join(dir, "b", ".ply", "settings.json")
	for _, l := range [][2]string{{target, linkedDir}, {filepath.Join(target, "settings.json"), linkedFile}} {
		if err := os.MkdirAll(filepath.Dir(l[1]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(linkedDir, "settings.json"), linkedFile} {
		if err := SaveAllowRules(p, []string{"Read"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(target, "settings.json")); string(b) != "{}" {
		t.Fatalf("written through a link: %s", b)
	}
}

package permission

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plyhq/ply/internal/tools"
)

func policyFrom(t *testing.T, cfg Config) *Policy {
	t.Helper()
	if cfg.Workspace == nil {
		root, _ := testWorkspace(t)
		ws, err := tools.NewWorkspace(root)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Workspace = ws
	}
	if cfg.ReadOnlyProfile == nil {
		cfg.ReadOnlyProfile = profileAvailable
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExcludeTools(t *testing.T) {
	p := policyFrom(t, Config{
		ExcludeTools: []string{"WebFetch", "mcp__gh", "ShellTool(rm -rf)"},
		Settings:     []RuleSet{{Source: "/home/u/.ply/settings.json", Deny: []string{"Write", "Read(.env)"}}},
	})
	for name, offered := range map[string]bool{
		ToolWebFetch:            false,
		"mcp__gh__create_issue": false,
		"mcp__gh__x":            false,
		"mcp__ghe__x":           true,
		ToolWriteFile:           false, // a bare deny rule hides the tool too
		ToolShell:               true,  // only some commands are excluded
		ToolReadFile:            true,  // only some paths are denied
		ToolEdit:                true,
	} {
		ok, reason := p.Enabled(name)
		if ok != offered || p.Offered(name) != offered || (!ok && reason == "") {
			t.Errorf("Enabled(%s) = %v %q, want %v", name, ok, reason, offered)
		}
	}
	if _, reason := p.Enabled(ToolWebFetch); !strings.Contains(reason, "--exclude-tools") {
		t.Errorf("reason %q does not name the flag", reason)
	}
	if _, reason := p.Enabled(ToolWriteFile); !strings.Contains(reason, "Write from /home/u/.ply/settings.json") {
		t.Errorf("reason %q does not name the rule and file", reason)
	}
	// --exclude-tools reads a shell pattern without * as a prefix, as
	// Qwen Code does.
	for cmd, want := range map[string]string{"rm -rf /": "deny", "rm -rf": "deny", "rm x": "ask", "git status": "allow"} {
		v, reason := p.Check(t.Context(), shellCall(t, cmd))
		if verdictName(v) != want {
			t.Errorf("%q: %s (%s), want %s", cmd, verdictName(v), reason, want)
		}
	}
	v, reason := p.Check(t.Context(), shellCall(t, "rm -rf /"))
	if v != denyV || reason != "denied by rule ShellTool(rm -rf) from --exclude-tools" {
		t.Errorf("reason %q", reason)
	}
}

func TestCoreTools(t *testing.T) {
	p := policyFrom(t, Config{CoreTools: []string{"read_file", "Grep", "ShellTool(git)", "Bash(ls -l)", "mcp__gh"}})
	for name, offered := range map[string]bool{
		ToolReadFile: true, ToolGrep: true, ToolShell: true, "mcp__gh__x": true,
		ToolEdit: false, ToolWriteFile: false, ToolGlob: false, "mcp__other__x": false, ToolExitPlanMode: false,
	} {
		if got := p.Offered(name); got != offered {
			t.Errorf("Offered(%s) = %v, want %v", name, got, offered)
		}
	}
	if ok, reason := p.Enabled(ToolEdit); ok || !strings.Contains(reason, "--core-tools") {
		t.Errorf("Enabled(edit) = %v %q", ok, reason)
	}
	// A tool listed only with specifiers runs only the calls they cover,
	// and still goes through approval.
	for cmd, want := range map[string]string{
		"git status":           "allow", // covered, and read-only
		"git push":             "ask",   // covered, not read-only: asks
		"ls -l src":            "allow",
		"git log && ls -l":     "allow",
		"npm test":             "deny",
		"git status; npm test": "deny",
		"cat README.md":        "deny", // read-only, but not among the core commands
	} {
		v, reason := p.Check(t.Context(), shellCall(t, cmd))
		if verdictName(v) != want {
			t.Errorf("core %q: %s (%s), want %s", cmd, verdictName(v), reason, want)
		}
		if want == "deny" && !strings.Contains(reason, "ShellTool(git), Bash(ls -l)") {
			t.Errorf("core %q: reason %q does not list the core commands", cmd, reason)
		}
	}
	if v, _ := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": "x"})); v != denyV {
		t.Errorf("a tool outside --core-tools is denied even if the scheduler asks: %s", verdictName(v))
	}
}

func TestAllowedTools(t *testing.T) {
	p := policyFrom(t, Config{AllowedTools: []string{"Edit", "run_shell_command(npm test)"}})
	if v, reason := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": "README.md"})); v != allowV || reason != "allowed by rule Edit from --allowed-tools" {
		t.Errorf("edit: %s %q", verdictName(v), reason)
	}
	// --allowed-tools approves, so a shell pattern there is exact, not Qwen's prefix.
	if v, _ := p.Check(t.Context(), shellCall(t, "npm test --updateSnapshot")); v != askV {
		t.Errorf("allowed-tools prefix: %s", verdictName(v))
	}
	if v, _ := p.Check(t.Context(), call(t, ToolWriteFile, args{"file_path": "x"})); v != askV {
		t.Errorf("Edit allows write_file only with a path: %s", verdictName(v))
	}
}

func TestNewReportsEveryBadRule(t *testing.T) {
	root, _ := testWorkspace(t)
	ws, _ := tools.NewWorkspace(root)
	p, err := New(Config{
		Workspace:    ws,
		Settings:     []RuleSet{{Allow: []string{"Bash(git *", "Read"}, Deny: []string{"Read(!x)"}}, {Source: "project", Ask: []string{"Bash(a | b)"}}},
		AllowedTools: []string{"Foo(bar)"},
		ExcludeTools: []string{""},
		CoreTools:    []string{"mcp__"},
	})
	if p == nil {
		t.Fatal("no policy from the valid rules")
	}
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var re *RuleError
		if !errors.As(e, &re) {
			t.Fatalf("%v is not a *RuleError", e)
		}
		got = append(got, re.Rule+" @ "+re.Source)
	}
	want := []string{"Read(!x) @ settings", "Bash(git * @ settings", "Bash(a | b) @ project", "Foo(bar) @ --allowed-tools", " @ --exclude-tools", "mcp__ @ --core-tools"}
	if !slices.Equal(got, want) {
		t.Errorf("errors for\n%q\nwant\n%q\n(%v)", got, want, err)
	}
	if !strings.Contains(err.Error(), `permission rule "Bash(a | b)" from project: `) {
		t.Errorf("error text: %v", err)
	}
	// The valid rules are kept. A --core-tools list none of whose entries
	// parse still restricts: to nothing, which fails closed.
	if v, reason := p.Check(t.Context(), call(t, ToolReadFile, args{"file_path": "x"})); v != denyV || !strings.Contains(reason, "--core-tools") {
		t.Errorf("read with a broken --core-tools: %s %q", verdictName(v), reason)
	}
	if len(p.allow) != 1 || len(p.deny) != 0 || len(p.ask) != 0 {
		t.Errorf("kept allow %v, deny %v, ask %v", p.allow, p.deny, p.ask)
	}
	if _, err := New(Config{}); err == nil {
		t.Error("no workspace accepted")
	}
	if _, err := New(Config{Workspace: ws, Mode: 7}); !errors.Is(err, ErrUnknownMode) {
		t.Errorf("bad mode: %v", err)
	}
}

func TestAllowAlways(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, []string{"Bash(make:*)"}, nil, nil)
	// Each step lists the rules added; read-only parts and parts already
	// covered (make, by settings) add none.
	for _, c := range []struct {
		cmd   string
		added []string
	}{
		{"git status -s && npm run test:unit -- --watch", []string{"Bash(npm run test:unit:*)"}},
		{"git commit -m 'it works' && git push", []string{"Bash(git commit:*)", "Bash(git push:*)"}},
		{"git push origin main", nil}, // already covered
		{"make all && ./build.sh --fast", []string{"Bash(./build.sh:*)"}},
		{"rm -rf $OUT", nil}, // no rule can cover it, so none is added
		{"CGO_ENABLED=0 go build ./...", []string{"Bash(CGO_ENABLED=0 go build:*)"}},
		{"'my tool' x", []string{"Bash('my tool':*)"}},
	} {
		before := p.SessionRules()
		p.AllowAlways(shellCall(t, c.cmd))
		if added := p.SessionRules()[len(before):]; !slices.Equal(added, c.added) {
			t.Errorf("AllowAlways(%q) added %q, want %q", c.cmd, added, c.added)
		}
		if strings.Contains(c.cmd, "$") {
			continue
		}
		if v, reason := p.Check(t.Context(), shellCall(t, c.cmd)); v != allowV {
			t.Errorf("%q after allow always: %s (%s)", c.cmd, verdictName(v), reason)
		}
	}
	if v, reason := p.Check(t.Context(), shellCall(t, "git push --force")); v != allowV || !strings.Contains(reason, "from this session") {
		t.Errorf("session rule: %s %q", verdictName(v), reason)
	}
	if v, _ := p.Check(t.Context(), shellCall(t, "git reset --hard")); v != askV {
		t.Errorf("other git subcommands still ask: %s", verdictName(v))
	}
	p.AllowAlways(call(t, ToolEdit, args{"file_path": "README.md"}))
	p.AllowAlways(call(t, ToolEdit, args{"file_path": "other.md"}))
	p.AllowAlways(call(t, "mcp__gh__create_issue", args{}))
	rules := p.SessionRules()
	if n := len(rules); rules[n-2] != "edit" || rules[n-1] != "mcp__gh__create_issue" || slices.Index(rules, "edit") != n-2 {
		t.Errorf("session rules %q", rules)
	}
	if v, _ := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": "docs/x.md"})); v != allowV {
		t.Errorf("edit after allow always: %s", verdictName(v))
	}
	// Session rules never beat a deny, nor .git.
	if v, _ := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": ".git/config"})); v != denyV {
		t.Errorf(".git after allow always: %s", verdictName(v))
	}
}

func TestSetModeConcurrent(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeDefault, nil, nil, []string{"Bash(rm *)"})
	if err := p.SetMode(Mode(-1)); !errors.Is(err, ErrUnknownMode) || p.Mode() != ModeDefault {
		t.Fatalf("SetMode(-1) = %v, mode %v", err, p.Mode())
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch g % 4 {
				case 0:
					if err := p.SetMode(Modes()[(g+i)%4]); err != nil {
						t.Error(err)
					}
				case 1:
					// Whatever the mode, a deny rule denies and a read is allowed.
					if v, _ := p.Check(t.Context(), shellCall(t, "rm -rf x")); v != denyV {
						t.Errorf("rm: %s in %v", verdictName(v), p.Mode())
					}
					if v, _ := p.Check(t.Context(), call(t, ToolReadFile, args{"file_path": "README.md"})); v != allowV {
						t.Errorf("read: %s", verdictName(v))
					}
				case 2:
					p.AllowAlways(shellCall(t, fmt.Sprintf("tool%d run", i%10)))
					_ = p.SessionRules()
				case 3:
					// The verdict depends on the mode of the moment; the
					// race detector checks the reads.
					_, _ = p.Check(t.Context(), call(t, ToolEdit, args{"file_path": "README.md"}))
					_ = p.Mode()
				}
			}
		}()
	}
	wg.Wait()
	for _, m := range Modes() {
		if err := p.SetMode(m); err != nil || p.Mode() != m {
			t.Errorf("SetMode(%v): %v, now %v", m, err, p.Mode())
		}
	}
}

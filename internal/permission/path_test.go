package permission

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPathRules(t *testing.T) {
	root, outside := testWorkspace(t)
	home := filepath.Join(filepath.Dir(root), "home")
	mkdir(t, filepath.Join(home, ".ssh"))
	write(t, filepath.Join(home, ".ssh/id_ed25519"))
	link(t, filepath.Join(home, ".ssh/id_ed25519"), filepath.Join(root, "src/key"))
	p := newPolicy(t, root, ModeDefault, nil, nil, nil)

	tests := []struct {
		rule string
		arg  string // path argument as the model gives it
		// catch: a deny/ask rule matches (as written or resolved);
		// cover: an allow rule covers (resolved).
		catch, cover bool
	}{
		{"Read(.env)", ".env", true, true},
		{"Read(.env)", "docs/.env", true, true},
		{"Read(.env)", "src/../.env", true, true},
		{"Read(.env)", filepath.Join(root, ".env"), true, true},
		{"Read(.env)", "docs/innocent.txt", true, true}, // a link to .env
		{"Read(.env)", "README.md", false, false},
		{"Read(.env)", ".envrc", false, false},
		{"Read(/.env)", "docs/.env", false, false}, // anchored at the root
		{"Read(/.env)", ".env", true, true},
		{"Read(**/*.key)", "secrets/id.key", true, true},
		{"Read(*.key)", "secrets/id.key", true, true},
		{"Read(secrets/)", "secrets/id.key", true, true},
		{"Read(secrets)", "secrets/id.key", true, true},
		{"Read(/secrets/**)", "secrets", true, true},
		{"Edit(/src/**)", "src/main.go", true, true},
		{"Edit(/src/**)", "src/new/dir/file.go", true, true},
		{"Edit(src/**)", "src/pkg/a.go", true, true},
		{"Edit(./src/**)", "src/pkg/a.go", true, true},
		{"Edit(/src/**)", "src/../README.md", false, false},
		{"Edit(/src/**)", "src/out.txt", true, false},      // written in src, lands outside
		{"Edit(/src/**)", "src/outdir/x.txt", true, false}, // through a directory link
		{"Edit(/src/**)", "src/dangling.txt", true, false}, // a link to a file not there yet
		{"Edit(/src/**)", "src/hooks/pre-commit", true, false},
		{"Edit(/src/*.go)", "src/pkg/a.go", false, false},
		{"Edit(/src/*.go)", "src/main.go", true, true},
		{"Edit(/src/**/*.go)", "src/pkg/a.go", true, true},
		{"Edit(/{src,docs}/**)", "docs/x.md", true, true},
		{"Read(//" + outside[1:] + "/**)", filepath.Join(outside, "target.txt"), true, true},
		{"Read(//" + outside[1:] + "/**)", "src/out.txt", true, true}, // resolves there
		{"Read(//" + outside[1:] + "/**)", "src/main.go", false, false},
		{"Read(~/.ssh/**)", filepath.Join(home, ".ssh/id_ed25519"), true, true},
		{"Read(~/.ssh/**)", "src/key", true, true},
		{"Read(~/.ssh/**)", "README.md", false, false},
		{"Read(~)", filepath.Join(home, "notes.txt"), true, true},
		{"Read(/**)", "anything/at/all", true, true},
		{"Read(//**)", filepath.Join(outside, "target.txt"), true, true},
	}
	for _, tc := range tests {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		ci := &callInfo{name: r.Tool(), argsOK: true, args: callArgs{FilePath: tc.arg}}
		rules := []sourced{{r, "test"}}
		_, catch := p.catch(rules, ci)
		_, cover := p.permit(rules, ci)
		if catch != tc.catch || cover != tc.cover {
			t.Errorf("%s on %s: catch %v cover %v, want %v %v", tc.rule, tc.arg, catch, cover, tc.catch, tc.cover)
		}
	}
}

func TestFollowLinks(t *testing.T) {
	root, outside := testWorkspace(t)
	for arg, want := range map[string]string{
		"src/main.go":          filepath.Join(root, "src/main.go"),
		"src/out.txt":          filepath.Join(outside, "target.txt"),
		"src/outdir/new/x.txt": filepath.Join(outside, "new/x.txt"),
		"src/dangling.txt":     filepath.Join(outside, "missing.txt"),
		"src/hooks/pre-commit": filepath.Join(root, ".git/hooks/pre-commit"),
		"src/outdir/../ws":     filepath.Join(root), // lexically src/ws; cleaned before links are followed
		"no/such/dir/f":        filepath.Join(root, "no/such/dir/f"),
	} {
		lex := filepath.Clean(filepath.Join(root, arg))
		got, err := followLinks(lex)
		if arg == "src/outdir/../ws" {
			want = filepath.Join(root, "src/ws") // the tool opens the cleaned path
		}
		if err != nil || got != want {
			t.Errorf("followLinks(%s) = %q, %v; want %q", arg, got, err, want)
		}
	}
	// A link that climbs out of its target: x -> outdir/.., so x/ws is the
	// directory above outside, then ws: the root itself.
	link(t, "outdir/..", filepath.Join(root, "src/up"))
	if got, err := followLinks(filepath.Join(root, "src/up/ws/README.md")); err != nil || got != filepath.Join(root, "README.md") {
		t.Errorf("'..' after a link: %q, %v", got, err)
	}
	// A loop ends with an error instead of spinning.
	link(t, "loop2", filepath.Join(root, "loop1"))
	link(t, "loop1", filepath.Join(root, "loop2"))
	if _, err := followLinks(filepath.Join(root, "loop1/x")); !errors.Is(err, errLinkLoop) {
		t.Errorf("loop: %v", err)
	}
	// ...and a path through the loop is covered by no allow rule, while
	// auto-edit does not approve it either.
	p := newPolicy(t, root, ModeAutoEdit, []string{"Edit(/**)"}, nil, nil)
	if v, reason := p.Check(t.Context(), call(t, ToolWriteFile, args{"file_path": "loop1/x"})); v != askV {
		t.Errorf("write through a link loop: %s (%s)", verdictName(v), reason)
	}
}

func TestGitDirAnyCase(t *testing.T) {
	root, _ := testWorkspace(t)
	p := newPolicy(t, root, ModeYOLO, nil, nil, nil)
	for _, f := range []string{".git", ".git/config", ".GIT/config", "sub/module/.git/hooks/post-checkout", filepath.Join(root, ".git/HEAD")} {
		if v, _ := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": f})); v != denyV {
			t.Errorf("edit of %s: %s", f, verdictName(v))
		}
	}
	if v, _ := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": ".gitignore"})); v != allowV {
		t.Errorf(".gitignore: %s", verdictName(v))
	}
}

func TestUnreadablePathFailsClosed(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	root, _ := testWorkspace(t)
	locked := filepath.Join(root, "locked")
	mkdir(t, filepath.Join(locked, "in"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	p := newPolicy(t, root, ModeDefault, []string{"Edit(/**)"}, nil, nil)
	if v, _ := p.Check(t.Context(), call(t, ToolEdit, args{"file_path": "locked/in/x"})); v != askV {
		t.Errorf("unresolvable path: %s", verdictName(v))
	}
}

package ide

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTree is a process tree: pid → (parent, name).
type fakeTree map[int]struct {
	ppid int
	name string
}

func (t fakeTree) parent(pid int) (int, string, error) {
	p, ok := t[pid]
	if !ok {
		return 0, "", os.ErrNotExist
	}
	return p.ppid, p.name, nil
}

// vscodeTree is ply (500) in bash (400) under the terminal host (300)
// under the editor (200) under init.
var vscodeTree = fakeTree{
	500: {400, "ply"},
	400: {300, "bash"},
	300: {200, "code"},
	200: {1, "code"},
}

func testEnv(t *testing.T, env map[string]string) Env {
	t.Helper()
	root := t.TempDir()
	cwd := filepath.Join(root, "project", "sub")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	return Env{
		Getenv:  func(k string) string { return env[k] },
		TempDir: filepath.Join(root, "tmp"),
		Home:    filepath.Join(root, "home"),
		Cwd:     cwd,
		PID:     500,
		UID:     os.Getuid(),
		Parent:  vscodeTree.parent,
	}
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestIDEProcessWalksToTheShellsGrandparent(t *testing.T) {
	e := testEnv(t, nil)
	if got := IDEProcess(e); got != 200 {
		t.Fatalf("IDEProcess = %d, want the editor's 200", got)
	}
	e.Getenv = func(k string) string {
		if k == "GEMINI_CLI_IDE_PID" {
			return "4242"
		}
		return ""
	}
	if got := IDEProcess(e); got != 4242 {
		t.Fatalf("with GEMINI_CLI_IDE_PID, IDEProcess = %d, want 4242", got)
	}
	e = testEnv(t, nil)
	e.Parent = fakeTree{500: {77, "ply"}, 77: {1, "tmux"}}.parent
	if got := IDEProcess(e); got != 77 {
		t.Fatalf("with no shell, IDEProcess = %d, want the last ancestor 77", got)
	}
}

func TestDiscoverFindsEachFamilysFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		path func(e Env) string
	}{
		{"qwen lock named by the port variable", map[string]string{"QWEN_CODE_IDE_SERVER_PORT": "3456"},
			func(e Env) string { return filepath.Join(e.Home, ".qwen", "ide", "3456.lock") }},
		{"qwen lock under QWEN_HOME", map[string]string{"QWEN_CODE_IDE_SERVER_PORT": "3456", "QWEN_HOME": "QH"},
			func(e Env) string { return filepath.Join(e.Getenv("QWEN_HOME"), "ide", "3456.lock") }},
		{"qwen lock found by the editor's pid", nil,
			func(e Env) string { return filepath.Join(e.Home, ".qwen", "ide", "9999.lock") }},
		{"qwen legacy file", nil,
			func(e Env) string { return filepath.Join(e.TempDir, "qwen-code-ide-server-200.json") }},
		{"qwen spec file", nil,
			func(e Env) string {
				return filepath.Join(e.TempDir, "qwen", "ide", "qwen-code-ide-server-200-3456.json")
			}},
		{"gemini file", nil,
			func(e Env) string {
				return filepath.Join(e.TempDir, "gemini", "ide", "gemini-ide-server-200-3456.json")
			}},
		{"gemini file without the port", nil,
			func(e Env) string { return filepath.Join(e.TempDir, "gemini", "ide", "gemini-ide-server-200.json") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range tc.env {
				env[k] = v
			}
			e := testEnv(t, env)
			if env["QWEN_HOME"] != "" {
				env["QWEN_HOME"] = filepath.Join(e.Home, "qh")
			}
			path := tc.path(e)
			ws := filepath.Dir(e.Cwd)
			writeFile(t, path, `{"port":3456,"workspacePath":"/elsewhere`+string(os.PathListSeparator)+ws+`","authToken":"s3cret","ppid":200,"ideName":"VS Code"}`, 0o600)
			srv, notices, err := Discover(e)
			if err != nil {
				t.Fatalf("Discover: %v (notices %q)", err, notices)
			}
			if srv.Port != 3456 || srv.File != path || srv.token != "s3cret" || srv.IDE != "VS Code" {
				t.Fatalf("Discover = %+v, want port 3456 from %s", srv, path)
			}
			if strings.Contains(srv.String(), "s3cret") {
				t.Fatalf("the server's description shows the token: %s", srv)
			}
			if srv.URL() != "http://127.0.0.1:3456/mcp" {
				t.Fatalf("URL = %s", srv.URL())
			}
		})
	}
}

func TestDiscoverRefusesADirectoryOutsideTheWorkspace(t *testing.T) {
	e := testEnv(t, nil)
	writeFile(t, filepath.Join(e.TempDir, "gemini", "ide", "gemini-ide-server-200-3456.json"),
		`{"port":3456,"workspacePath":"/some/other/project","authToken":"t"}`, 0o600)
	_, _, err := Discover(e)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "/some/other/project") || !strings.Contains(re.Reason, e.Cwd) {
		t.Fatalf("Discover = %v, want a refusal naming both directories", err)
	}
	writeFile(t, filepath.Join(e.TempDir, "gemini", "ide", "gemini-ide-server-200-3456.json"),
		`{"port":3456,"workspacePath":"","authToken":"t"}`, 0o600)
	if _, _, err := Discover(e); !errors.As(err, &re) || !strings.Contains(re.Reason, "no folder open") {
		t.Fatalf("Discover with no folder open = %v", err)
	}
	// A sibling whose name starts like the workspace is not inside it.
	writeFile(t, filepath.Join(e.TempDir, "gemini", "ide", "gemini-ide-server-200-3456.json"),
		`{"port":3456,"workspacePath":"`+filepath.Dir(e.Cwd)+`-x","authToken":"t"}`, 0o600)
	if _, _, err := Discover(e); !errors.As(err, &re) {
		t.Fatalf("Discover with a sibling workspace = %v, want a refusal", err)
	}
}

func TestDiscoverWithNothingSaysWhatToInstall(t *testing.T) {
	_, _, err := Discover(testEnv(t, nil))
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "companion extension") {
		t.Fatalf("Discover = %v", err)
	}
}

func TestDiscoverIgnoresLooseAndForeignFiles(t *testing.T) {
	e := testEnv(t, nil)
	ws := filepath.Dir(e.Cwd)
	good := `{"port":3456,"workspacePath":"` + ws + `","authToken":"t"}`
	gemini := filepath.Join(e.TempDir, "gemini", "ide", "gemini-ide-server-200-3456.json")
	writeFile(t, gemini, good, 0o622)
	_, notices, err := Discover(e)
	if err == nil || len(notices) != 1 || !strings.Contains(notices[0], "other users may write it") {
		t.Fatalf("a group- and world-writable file: err %v, notices %q", err, notices)
	}
	// A link to a good file is not followed.
	target := filepath.Join(e.Home, "real.json")
	writeFile(t, target, good, 0o600)
	if err := os.Remove(gemini); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, gemini); err != nil {
		t.Fatal(err)
	}
	_, notices, err = Discover(e)
	if err == nil || len(notices) != 1 || !strings.Contains(notices[0], "symbolic link") {
		t.Fatalf("a symbolic link: err %v, notices %q", err, notices)
	}
	// Another user's file: the check compares with the trusted uid.
	if err := os.Remove(gemini); err != nil {
		t.Fatal(err)
	}
	writeFile(t, gemini, good, 0o600)
	e.UID = os.Getuid() + 1
	_, notices, err = Discover(e)
	if err == nil || len(notices) != 1 || !strings.Contains(notices[0], "another user") {
		t.Fatalf("another user's file: err %v, notices %q", err, notices)
	}
	e.UID = os.Getuid()
	if _, _, err := Discover(e); err != nil {
		t.Fatalf("the same file, owned by the user: %v", err)
	}
}

func TestDiscoverSkipsAnotherEditorsLockFile(t *testing.T) {
	e := testEnv(t, nil)
	writeFile(t, filepath.Join(e.Home, ".qwen", "ide", "1111.lock"),
		`{"port":1111,"workspacePath":"`+filepath.Dir(e.Cwd)+`","authToken":"t","ppid":999}`, 0o600)
	if srv, _, err := Discover(e); err == nil {
		t.Fatalf("Discover took another editor's lock file: %+v", srv)
	}
}

func FuzzParseDiscovery(f *testing.F) {
	f.Add([]byte(`{"port":3456,"workspacePath":"/a:/b","authToken":"x","ppid":1,"ideName":"VS Code"}`))
	f.Add([]byte(`{"port":"3456","authToken":"x"}`))
	f.Add([]byte(`{"port":0}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDiscovery(data)
		if err == nil && d.AuthToken == "" {
			t.Fatal("accepted a file without a token")
		}
	})
}

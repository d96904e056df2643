package ide

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Server is a companion's MCP server as its discovery file describes it.
// Its token is kept unexported and never printed: String leaves it out.
type Server struct {
	Port int
	// Workspaces are the folders open in the editor.
	Workspaces []string
	// IDE is the editor's name as the file gives it ("" when it does not).
	IDE string
	// File is the discovery file read.
	File  string
	token string
}

// URL is the server's endpoint; only the loopback address is used,
// whatever the file says.
func (s Server) URL() string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", s.Port) }

func (s Server) String() string {
	return fmt.Sprintf("%s on port %d (%s)", cmpOr(s.IDE, "the IDE"), s.Port, s.File)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Env is what discovery reads of the process and the machine; SystemEnv
// is the real one, tests build their own.
type Env struct {
	Getenv  func(string) string
	TempDir string
	Home    string
	Cwd     string
	// PID is ply's process, UID the user whose files are trusted.
	PID, UID int
	// Parent returns a process's parent and its command's name.
	Parent func(pid int) (ppid int, name string, err error)
}

// SystemEnv is the environment of this process, working in cwd.
func SystemEnv(cwd string) Env {
	home, _ := os.UserHomeDir()
	return Env{Getenv: os.Getenv, TempDir: os.TempDir(), Home: home, Cwd: cwd,
		PID: os.Getpid(), UID: os.Getuid(), Parent: parentProcess}
}

// RefusedError is why no companion is used: none was found, or the
// working directory is outside the editor's workspace.
type RefusedError struct {
	Reason string
	// NotFound: no discovery file at all (ply does not run in an editor
	// with a companion extension).
	NotFound bool
}

func (e *RefusedError) Error() string { return e.Reason }

// maxTreeDepth bounds the walk up the process tree.
const maxTreeDepth = 32

var shells = []string{"zsh", "bash", "sh", "tcsh", "csh", "ksh", "fish", "dash"}

// IDEProcess returns the editor's process: GEMINI_CLI_IDE_PID when set,
// otherwise the walk the extensions expect: up from ply to the first
// shell, whose grandparent (the terminal's host's parent) is the editor;
// with no shell on the way, the last ancestor before init.
func IDEProcess(e Env) int {
	if v := e.Getenv("GEMINI_CLI_IDE_PID"); v != "" {
		if pid, err := strconv.Atoi(v); err == nil && pid > 0 {
			return pid
		}
	}
	cur := e.PID
	for range maxTreeDepth {
		ppid, name, err := e.Parent(cur)
		if err != nil {
			break
		}
		if slices.Contains(shells, strings.TrimPrefix(filepath.Base(name), "-")) {
			ide := ppid
			if gp, _, err := e.Parent(ppid); err == nil && gp > 1 {
				ide = gp
			}
			return ide
		}
		if ppid <= 1 {
			break
		}
		cur = ppid
	}
	return cur
}

// discoveryFile is a discovery file's content, both families' fields.
type discoveryFile struct {
	Port          json.Number `json:"port"`
	WorkspacePath *string     `json:"workspacePath"`
	AuthToken     string      `json:"authToken"`
	PPID          int         `json:"ppid"`
	IDEName       string      `json:"ideName"`
	IDEInfo       *struct {
		DisplayName string `json:"displayName"`
	} `json:"ideInfo"`
}

// parseDiscovery reads a discovery file's content.
func parseDiscovery(data []byte) (discoveryFile, error) {
	var f discoveryFile
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("not a discovery file: %w", err)
	}
	p, err := strconv.Atoi(string(f.Port))
	if err != nil || p <= 0 || p > 65535 {
		return f, fmt.Errorf("not a discovery file: the port %q is not a port number", f.Port)
	}
	if f.AuthToken == "" {
		return f, errors.New("not a discovery file: it holds no auth token")
	}
	return f, nil
}

var (
	geminiFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^gemini-ide-server-(\d+)-(\d+)\.json$`) })
	qwenFile   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^qwen-code-ide-server-(\d+)-(\d+)\.json$`) })
	lockFile   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.lock$`) })
)

// qwenDir is Qwen Code's directory: QWEN_HOME, or ~/.qwen.
func qwenDir(e Env) string {
	if d := e.Getenv("QWEN_HOME"); d != "" {
		return d
	}
	return filepath.Join(e.Home, ".qwen")
}

// candidate is a discovery file to try; scanned says it was found by
// listing Qwen Code's lock directory, and belongs to this editor only if
// it names the editor's process as its own.
type candidate struct {
	path    string
	scanned bool
}

// candidates are the discovery files to try for the editor process pid,
// in order: the file the port variable names, then the files named with
// the editor's process id, both families, then Qwen Code's other lock
// files.
func candidates(e Env, pid int) []candidate {
	var paths []string
	port := e.Getenv("QWEN_CODE_IDE_SERVER_PORT")
	if _, err := strconv.Atoi(port); err != nil {
		port = ""
	}
	qdir := filepath.Join(qwenDir(e), "ide")
	if port != "" {
		paths = append(paths, filepath.Join(qdir, port+".lock"))
	}
	p := strconv.Itoa(pid)
	paths = append(paths, filepath.Join(e.TempDir, "qwen-code-ide-server-"+p+".json"))
	if port != "" {
		paths = append(paths, filepath.Join(e.TempDir, "qwen-code-ide-server-"+port+".json"))
	}
	paths = append(paths, named(filepath.Join(e.TempDir, "qwen", "ide"), qwenFile(), p)...)
	gdir := filepath.Join(e.TempDir, "gemini", "ide")
	paths = append(paths, named(gdir, geminiFile(), p)...)
	paths = append(paths, filepath.Join(gdir, "gemini-ide-server-"+p+".json"))
	seen := map[string]bool{}
	var out []candidate
	for _, path := range paths {
		if !seen[path] {
			seen[path] = true
			out = append(out, candidate{path: path})
		}
	}
	if entries, err := os.ReadDir(qdir); err == nil {
		for _, en := range entries {
			path := filepath.Join(qdir, en.Name())
			if lockFile().MatchString(en.Name()) && !seen[path] {
				out = append(out, candidate{path: path, scanned: true})
			}
		}
	}
	return out
}

// named lists the files of dir that re matches with pid as their first
// number.
func named(dir string, re *regexp.Regexp, pid string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, en := range entries {
		if m := re.FindStringSubmatch(en.Name()); m != nil && m[1] == pid {
			out = append(out, filepath.Join(dir, en.Name()))
		}
	}
	return out
}

// maxDiscoveryFile bounds the file read.
const maxDiscoveryFile = 64 << 10

// Discover finds the companion of the editor ply runs in. Files that
// exist but cannot be trusted (another user's, writable by others, not a
// regular file) are passed over, each with a notice saying why. It
// returns a *RefusedError when no file is usable or the working directory
// is outside every workspace the files name.
func Discover(e Env) (Server, []string, error) {
	pid := IDEProcess(e)
	var notices, mismatched []string
	var found bool
	for _, c := range candidates(e, pid) {
		path := c.path
		data, err := readOwned(path, e.UID)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			notices = append(notices, fmt.Sprintf("ignoring the IDE discovery file %s: %v", path, err))
			continue
		}
		f, err := parseDiscovery(data)
		if err != nil {
			notices = append(notices, fmt.Sprintf("ignoring the IDE discovery file %s: %v", path, err))
			continue
		}
		if c.scanned && f.PPID != pid {
			continue // another editor's
		}
		found = true
		ws := ""
		switch {
		case f.WorkspacePath != nil:
			ws = *f.WorkspacePath
		default:
			ws = cmpOr(e.Getenv("QWEN_CODE_IDE_WORKSPACE_PATH"), e.Getenv("GEMINI_CLI_IDE_WORKSPACE_PATH"))
		}
		if ws == "" {
			mismatched = append(mismatched, "")
			continue
		}
		roots := filepath.SplitList(ws)
		if !inAny(e.Cwd, roots) {
			mismatched = append(mismatched, roots...)
			continue
		}
		port, _ := strconv.Atoi(string(f.Port))
		name := f.IDEName
		if name == "" && f.IDEInfo != nil {
			name = f.IDEInfo.DisplayName
		}
		return Server{Port: port, Workspaces: roots, IDE: name, File: path, token: f.AuthToken}, notices, nil
	}
	switch {
	case !found:
		return Server{}, notices, &RefusedError{NotFound: true, Reason: fmt.Sprintf(
			"no IDE companion extension found for this terminal (no discovery file for IDE process %d); install the Qwen Code or Gemini CLI companion extension in VS Code and run ply in its integrated terminal", pid)}
	case len(slices.DeleteFunc(slices.Clone(mismatched), func(s string) bool { return s == "" })) == 0:
		return Server{}, notices, &RefusedError{Reason: "the IDE has no folder open; open the project's folder in the IDE and try again"}
	}
	return Server{}, notices, &RefusedError{Reason: fmt.Sprintf(
		"ply runs in %s, outside the workspace open in the IDE (%s); run ply from one of those folders",
		e.Cwd, strings.Join(slices.Compact(slices.DeleteFunc(mismatched, func(s string) bool { return s == "" })), ", "))}
}

// inAny reports whether dir is one of roots or inside one, after
// resolving symbolic links on both sides.
func inAny(dir string, roots []string) bool {
	d := realPath(dir)
	for _, r := range roots {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		rel, err := filepath.Rel(realPath(r), d)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

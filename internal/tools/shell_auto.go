package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plyhq/ply/internal/sandbox"
)

// A command that runs unasked in auto mode runs under
// sandbox.WorkspacePolicy: it writes the workspace roots, a private
// temporary directory and the sandbox's own caches, and reads the
// workspace, the system and the toolchains and module caches of the home
// directory, but nothing else of it.
//
// The caches are per project, below the directory SetCacheDir names (ply
// puts it under $PLY_HOME): the build and download caches a command
// fills (GOCACHE, pip's, npm's, everything under XDG_CACHE_HOME) are
// never the ones the user's own builds outside the sandbox read, so a
// sandboxed command cannot poison them. The user's module caches are
// readable, not writable: a build that needs a module it lacks fails
// (there is no network either) and can ask to run outside the sandbox.

// SetCacheDir makes dir the root of the sandbox's per-project caches;
// each workspace gets its own directory below it. "" uses a directory
// for this run below the temporary directory. Call it before the first
// Execute.
func (t *Shell) SetCacheDir(dir string) { t.cacheRoot = dir }

// toolchainDirs are directories below the home directory that hold
// toolchains and the modules they download: a sandboxed build reads
// them. None of them holds credentials.
var toolchainDirs = []string{
	"go/pkg/mod", "sdk", ".cargo/registry", ".cargo/git", ".rustup", ".pyenv", ".nvm",
	".local/lib", ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".npm/_npx",
}

// workspaceCaches returns the sandbox's cache directory for this
// workspace, created, and the environment that points the tools there.
func (t *Shell) workspaceCaches() (dir string, env []string, err error) {
	root := t.cacheRoot
	if root == "" {
		root = filepath.Join(os.TempDir(), fmt.Sprintf("ply-sandbox-cache-%d", os.Getuid()))
	}
	sum := sha256.Sum256([]byte(strings.Join(t.ws.Roots(), "\x00")))
	dir = filepath.Join(root, filepath.Base(t.ws.Roots()[0])+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("create the sandbox's cache directory: %w", err)
	}
	env = []string{
		"XDG_CACHE_HOME=" + dir,
		"GOCACHE=" + filepath.Join(dir, "go-build"),
		"PIP_CACHE_DIR=" + filepath.Join(dir, "pip"),
		"npm_config_cache=" + filepath.Join(dir, "npm"),
		"YARN_CACHE_FOLDER=" + filepath.Join(dir, "yarn"),
	}
	return dir, env, nil
}

// moduleCaches returns the toolchain and module directories a sandboxed
// command may read, for the environment env.
func moduleCaches(env []string) []string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	var out []string
	add := func(p string) {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	add(get("GOMODCACHE"))
	for _, p := range filepath.SplitList(get("GOPATH")) {
		add(filepath.Join(p, "pkg", "mod"))
	}
	add(get("GOROOT"))
	if home := get("HOME"); filepath.IsAbs(home) && filepath.Clean(home) != "/" {
		for _, d := range toolchainDirs {
			add(filepath.Join(home, d))
		}
	}
	// A Go installed in the home directory: its bin is on PATH, its
	// sources and tools beside it.
	for _, d := range filepath.SplitList(get("PATH")) {
		if filepath.Base(d) == "bin" {
			if _, err := os.Stat(filepath.Join(d, "..", "pkg", "tool")); err == nil {
				add(filepath.Dir(d))
			}
		}
	}
	return out
}

// confineWorkspace prepares cmd for the workspace sandbox: a private
// temporary directory, which cleanup removes, the per-project caches, and
// the policy. It fails, and nothing runs, where the kernel cannot hold
// the command: auto mode never runs a command unconfined.
func (t *Shell) confineWorkspace(cmd *exec.Cmd) (policy *sandbox.Policy, cleanup func(), err error) {
	if err := sandbox.ReadOnlyAvailable(); err != nil {
		return nil, nil, fmt.Errorf("the kernel cannot hold the command in the workspace sandbox: %w", err)
	}
	caches, cacheEnv, err := t.workspaceCaches()
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "ply-auto-")
	if err != nil {
		return nil, nil, fmt.Errorf("create the private temporary directory: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	cmd.Env = confineEnviron(cmd.Env, cacheEnv, tmp)
	writable := append(slices.Clone(t.ws.Roots()), tmp, caches)
	network := false
	if t.sandbox != nil {
		// --sandbox's extra writable directories and its network choice
		// are the user's; auto adds nothing to them.
		writable = append(writable, t.sandbox.WritableDirs...)
		network = t.sandbox.AllowNetwork
	}
	if t.tempDir != "" {
		writable = append(writable, t.tempDir)
	}
	readable := append(t.readableDirs(), moduleCaches(cmd.Env)...)
	p := sandbox.WorkspacePolicy(writable, readable)
	p.AllowNetwork = network
	return &p, cleanup, nil
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nodeWith returns node's path and a node_modules directory holding pkg at
// version, for the tests that drive ply with a real client from npm. It
// skips the test in -short mode and where node or npm is missing or the
// package cannot be installed, saying why.
func nodeWith(t *testing.T, pkg, version string) (node, modules string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("installs %s from npm and runs node", pkg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH; install Node.js to run ply against %s", pkg)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm is not on PATH; install it with Node.js to run ply against %s", pkg)
	}
	return node, installNodePackage(t, npm, pkg, version)
}

// installNodePackage installs pkg@version once into the user's cache and
// returns its node_modules; it skips the test when npm cannot.
func installNodePackage(t *testing.T, npm, pkg, version string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "ply-test", "node-"+strings.NewReplacer("@", "", "/", "-").Replace(pkg)+"-"+version)
	modules := filepath.Join(root, "node_modules")
	has := func(modules string) bool {
		b, err := os.ReadFile(filepath.Join(modules, filepath.FromSlash(pkg), "package.json"))
		var p struct{ Version string }
		return err == nil && json.Unmarshal(b, &p) == nil && p.Version == version
	}
	if has(modules) {
		return modules
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		t.Skipf("cannot create the package cache: %v", err)
	}
	// A fresh directory renamed into place: an interrupted install never
	// looks like a good one.
	tmp, err := os.MkdirTemp(filepath.Dir(root), "install-")
	if err != nil {
		t.Skipf("cannot create the package cache: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"ply-node-test","private":true,"type":"module"}`+"\n"), 0o644); err != nil {
		t.Skipf("cannot write the package cache: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--silent",
		"--fetch-retries=2", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000", pkg+"@"+version)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install %s@%s failed (registry unreachable?): %v\n%s", pkg, version, err, out)
	}
	if !has(filepath.Join(tmp, "node_modules")) {
		t.Skipf("npm install %s@%s left no package behind", pkg, version)
	}
	if has(modules) {
		return modules
	}
	_ = os.RemoveAll(root)
	if err := os.Rename(tmp, root); err != nil && !has(modules) {
		t.Skipf("cannot move the package into its cache: %v", err)
	}
	return modules
}

// scriptDir returns a fresh directory holding testdata/dir/name beside a
// link to modules, so that the script's bare imports resolve without
// copying the install.
func scriptDir(t *testing.T, modules, dir, name string) string {
	t.Helper()
	run := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, name), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(run, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return run
}

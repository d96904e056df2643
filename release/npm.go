package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The npm packages follow the optional-dependency pattern: the main
// package (npmScope/ply) holds a small launcher and lists one package per
// platform as optional dependencies; each of those declares its os and
// cpu, so the package manager installs only the one that fits, and
// carries the binary. The launcher finds it with require.resolve.
const npmScope = "@plyhq"

// npmPlatform is Node's name for t (process.platform-process.arch).
func npmPlatform(t target) string {
	os, arch := t.OS, t.Arch
	if os == "windows" {
		os = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return os + "-" + arch
}

func npmPackageName(t target) string { return npmScope + "/ply-" + npmPlatform(t) }

// npmDir is where a package's directory goes under the npm output.
func npmDir(root, name string) string { return filepath.Join(root, filepath.Base(name)) }

func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// npmPlatformPackage writes t's package, carrying bin.
func npmPlatformPackage(root, version string, t target, bin string) error {
	name := npmPackageName(t)
	dir := npmDir(root, name)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", t.exe()), exe, 0o755); err != nil {
		return err
	}
	node := npmPlatform(t)
	return writeJSON(filepath.Join(dir, "package.json"), map[string]any{
		"name":        name,
		"version":     version,
		"description": fmt.Sprintf("The ply binary for %s; install %s/ply instead.", node, npmScope),
		"repository":  map[string]string{"type": "git", "url": "git+https://github.com/plyhq/ply.git"},
		"os":          []string{npmOS(t)},
		"cpu":         []string{t.Arch2()},
		"files":       []string{"bin/"},
	})
}

// Arch2 is Node's name for t's architecture.
func (t target) Arch2() string {
	if t.Arch == "amd64" {
		return "x64"
	}
	return t.Arch
}

// npmMainPackage writes the main package: the launcher and the optional
// dependencies on the platform packages of targets.
func npmMainPackage(root, version string, targets []target) error {
	dir := npmDir(root, npmScope+"/ply")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "ply.js"), []byte(npmLauncher), 0o755); err != nil {
		return err
	}
	opt := map[string]string{}
	for _, t := range targets {
		opt[npmPackageName(t)] = version
	}
	return writeJSON(filepath.Join(dir, "package.json"), map[string]any{
		"name":                 npmScope + "/ply",
		"version":              version,
		"description":          "ply, a coding agent for the terminal, in one native binary",
		"repository":           map[string]string{"type": "git", "url": "git+https://github.com/plyhq/ply.git"},
		"bin":                  map[string]string{"ply": "bin/ply.js"},
		"files":                []string{"bin/"},
		"engines":              map[string]string{"node": ">=16"},
		"optionalDependencies": opt,
	})
}

// npmOS is Node's name for t's system.
func npmOS(t target) string {
	if t.OS == "windows" {
		return "win32"
	}
	return t.OS
}

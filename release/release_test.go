package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The release tests build ply for this machine's target. A CI run that
// already built the whole release (release/check) hands its directory in
// PLY_RELEASE_DIR, built with testVersion and testCommit.
const (
	testVersion = "0.0.0-test"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
)

var host = target{runtime.GOOS, runtime.GOARCH}

var built struct {
	once sync.Once
	dir  string
	err  error
}

// release returns a release directory holding at least host's target.
func release(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds ply for the release")
	}
	if !testingHostSupported() {
		t.Skipf("no release target for %s/%s", host.OS, host.Arch)
	}
	built.once.Do(func() {
		if d := os.Getenv("PLY_RELEASE_DIR"); d != "" {
			built.dir = d
			return
		}
		built.dir, built.err = os.MkdirTemp("", "ply-release-test-")
		if built.err == nil {
			built.err = build(context.Background(), options{Version: testVersion, Commit: testCommit, Out: built.dir, Targets: []target{host}})
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

func testingHostSupported() bool {
	for _, t := range allTargets {
		if t == host {
			return true
		}
	}
	return false
}

func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv("PLY_RELEASE_DIR") == "" && built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// wantVersion runs bin --version and checks it names the stamped version
// and commit.
func wantVersion(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	if want := "ply " + testVersion + " (commit " + testCommit[:12] + ")"; strings.TrimSpace(string(out)) != want {
		t.Fatalf("%s --version = %q, want %q", bin, out, want)
	}
}

// TestReproducible builds host's archive a second time, into another
// directory, and wants it byte for byte the same, with no path of this
// machine in the binary.
func TestReproducible(t *testing.T) {
	first := release(t)
	second := t.TempDir()
	if err := build(context.Background(), options{Version: testVersion, Commit: testCommit, Out: second, Targets: []target{host}}); err != nil {
		t.Fatal(err)
	}
	name := archiveName(testVersion, host)
	a, err := os.ReadFile(filepath.Join(first, name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(second, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("two builds of %s differ (%d and %d bytes)", name, len(a), len(b))
	}
	bin, err := os.ReadFile(filepath.Join(second, "bin", host.OS+"-"+host.Arch, host.exe()))
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	goroot, _ := exec.Command("go", "env", "GOROOT").Output()
	for _, local := range []string{moduleRoot(), home, os.Getenv("GOPATH"), strings.TrimSpace(string(goroot))} {
		if len(local) > 1 && bytes.Contains(bin, []byte(filepath.Clean(local)+string(filepath.Separator))) {
			t.Errorf("the binary holds the local path %s", local)
		}
	}
}

func TestReleaseLayout(t *testing.T) {
	dir := release(t)
	sums, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	name := archiveName(testVersion, host)
	if !strings.Contains(string(sums), "  "+name+"\n") {
		t.Fatalf("checksums.txt has no line for %s:\n%s", name, sums)
	}
	wantVersion(t, filepath.Join(dir, "bin", host.OS+"-"+host.Arch, host.exe()))
}

// serve serves dir on loopback, as a release's download URL.
func serve(t *testing.T, dir string) string {
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

func runInstall(t *testing.T, base, installDir string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("sh", "install.sh")
	cmd.Env = append(os.Environ(), "PLY_VERSION=v"+testVersion, "PLY_INSTALL_DIR="+installDir, "PLY_BASE_URL="+base)
	return cmd.CombinedOutput()
}

func installTools(t *testing.T) {
	t.Helper()
	if host.OS == "windows" {
		t.Skip("the install script is for Linux and macOS")
	}
	_, curl := exec.LookPath("curl")
	_, wget := exec.LookPath("wget")
	if curl != nil && wget != nil {
		t.Skip("the install script needs curl or wget; neither is on PATH")
	}
}

func TestInstallScript(t *testing.T) {
	installTools(t)
	dir := release(t)
	into := filepath.Join(t.TempDir(), "bin")
	out, err := runInstall(t, serve(t, dir), into)
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	wantVersion(t, filepath.Join(into, "ply"))
}

func TestInstallScriptRefusesBadChecksum(t *testing.T) {
	installTools(t)
	dir := release(t)
	bad := t.TempDir()
	name := archiveName(testVersion, host)
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1 // a corrupted download
	if err := os.WriteFile(filepath.Join(bad, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "checksums.txt"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(t.TempDir(), "bin")
	out, err := runInstall(t, serve(t, bad), into)
	if err == nil || !strings.Contains(string(out), "checksum mismatch") {
		t.Fatalf("install.sh of a corrupted archive: err %v, output:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(into, "ply")); err == nil {
		t.Fatal("install.sh installed a binary whose checksum failed")
	}
}

// TestNpmInstall packs the main package and host's platform package and
// installs both from the tarballs into a fresh prefix, offline, as
// npm i -g would: the launcher must find and run the binary.
func TestNpmInstall(t *testing.T) {
	dir := release(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not on PATH; install Node.js to test the npm packages")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH; install Node.js to test the npm packages")
	}
	packs := t.TempDir()
	var tarballs []string
	for _, pkg := range []string{npmScope + "/ply", npmPackageName(host)} {
		cmd := exec.Command(npm, "pack", "--pack-destination", packs, npmDir(filepath.Join(dir, "npm"), pkg))
		cmd.Env = npmEnv(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("npm pack %s: %v\n%s", pkg, err, out)
		}
		lines := strings.Fields(string(out))
		tarballs = append(tarballs, filepath.Join(packs, lines[len(lines)-1]))
	}
	prefix := t.TempDir()
	args := append([]string{"install", "--global", "--prefix", prefix, "--offline", "--no-audit", "--no-fund"}, tarballs...)
	cmd := exec.Command(npm, args...)
	cmd.Env = npmEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	bin := filepath.Join(prefix, "bin", "ply")
	if host.OS == "windows" {
		bin = filepath.Join(prefix, "ply.cmd")
	}
	wantVersion(t, bin)
}

// npmEnv keeps npm's cache and configuration inside the test.
func npmEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "npm_config_cache="+filepath.Join(home, "cache"),
		"npm_config_userconfig="+filepath.Join(home, "npmrc"), "npm_config_update_notifier=false")
}

func TestHomebrewFormula(t *testing.T) {
	sums := map[string]string{}
	for _, tg := range allTargets {
		sums[archiveName("1.2.3", tg)] = strings.Repeat("ab", 32)
	}
	f, err := homebrewFormula("1.2.3", sums)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range allTargets {
		url := "https://github.com/plyhq/ply/releases/download/v1.2.3/" + archiveName("1.2.3", tg)
		if got := strings.Contains(f, url); got != (tg.OS != "windows") {
			t.Errorf("formula has %s: %v", url, got)
		}
	}
	opens, ends := 0, 0
	for _, l := range strings.Split(f, "\n") {
		if strings.HasSuffix(l, " do") || strings.HasPrefix(strings.TrimSpace(l), "class ") || strings.HasPrefix(strings.TrimSpace(l), "def ") {
			opens++
		}
		if strings.TrimSpace(l) == "end" {
			ends++
		}
	}
	if strings.Count(f, "sha256 ") != 4 || opens != ends {
		t.Errorf("formula's blocks do not balance:\n%s", f)
	}
	ruby, err := exec.LookPath("ruby")
	if err != nil {
		t.Skip("ruby is not on PATH: the formula's syntax is not checked")
	}
	path := filepath.Join(t.TempDir(), "ply.rb")
	if err := os.WriteFile(path, []byte(f), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ruby, "-c", path).CombinedOutput(); err != nil {
		t.Fatalf("ruby -c: %v\n%s", err, out)
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, o := range []options{
		{Version: "v1.2.3", Commit: testCommit, Out: "x"},
		{Version: "1.2", Commit: testCommit, Out: "x"},
		{Version: "1.2.3 -X main.x=y", Commit: testCommit, Out: "x"},
		{Version: "1.2.3", Commit: "HEAD", Out: "x"},
		{Version: "1.2.3", Commit: testCommit},
	} {
		if o.check() == nil {
			t.Errorf("%+v passed the check", o)
		}
	}
	if err := (options{Version: "1.2.3-rc.1", Commit: testCommit, Out: "x"}).check(); err != nil {
		t.Error(err)
	}
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"linux/amd64", "windows/arm64", "darwin", "/", "linux/amd64/x", " linux/arm64 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := parseTarget(s)
		if err != nil {
			return
		}
		if archiveName("1.0.0", tg) == "" || !testingSupported(tg) {
			t.Fatalf("parseTarget(%q) = %v, not a release target", s, tg)
		}
	})
}

func testingSupported(tg target) bool {
	for _, t := range allTargets {
		if t == tg {
			return true
		}
	}
	return false
}

// TestGoInstall installs ply from this checkout as `go install` would
// from the module proxy, into a fresh GOBIN, and runs it.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ply")
	}
	bin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/ply")
	cmd.Dir = moduleRoot()
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/ply: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, host.exe()), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ply ") {
		t.Fatalf("ply --version after go install = %q, %v", out, err)
	}
}

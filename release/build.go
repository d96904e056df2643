package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// module is ply's module path; cli is where the version is stamped.
const (
	module = "github.com/plyhq/ply"
	cliPkg = module + "/internal/cli"
)

// target is one platform of the release.
type target struct{ OS, Arch string }

// allTargets are the six platforms a release covers.
var allTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func parseTarget(s string) (target, error) {
	os, arch, ok := strings.Cut(strings.TrimSpace(s), "/")
	t := target{os, arch}
	if !ok || !slices.Contains(allTargets, t) {
		return target{}, fmt.Errorf("target %q: want one of linux, darwin, windows / amd64, arm64", s)
	}
	return t, nil
}

func (t target) exe() string {
	if t.OS == "windows" {
		return "ply.exe"
	}
	return "ply"
}

// archiveName is the file a release holds for t; the install script and
// the Homebrew formula compute the same names.
func archiveName(version string, t target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("ply_%s_%s_%s%s", version, t.OS, t.Arch, ext)
}

// options says what to build.
type options struct {
	Version, Commit, Out string
	Targets              []target // all six when empty
}

var (
	versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	commitRE  = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
)

func (o options) check() error {
	if !versionRE.MatchString(o.Version) {
		return fmt.Errorf("version %q: want MAJOR.MINOR.PATCH[-PRERELEASE], without a leading v", o.Version)
	}
	if !commitRE.MatchString(o.Commit) {
		return fmt.Errorf("commit %q: want a hexadecimal commit id", o.Commit)
	}
	if o.Out == "" {
		return errors.New("no output directory")
	}
	return nil
}

// build writes the release into o.Out: the archives, checksums.txt, the
// npm packages under npm/ and the Homebrew formula ply.rb.
func build(ctx context.Context, o options) error {
	if err := o.check(); err != nil {
		return err
	}
	targets := o.Targets
	if len(targets) == 0 {
		targets = allTargets
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return fmt.Errorf("empty %s: %w", o.Out, err)
	}
	bins := filepath.Join(o.Out, "bin")
	sums := map[string]string{}
	var names []string
	for _, t := range targets {
		bin := filepath.Join(bins, t.OS+"-"+t.Arch, t.exe())
		if err := compile(ctx, o, t, bin); err != nil {
			return err
		}
		name := archiveName(o.Version, t)
		data, err := archive(t, bin, o.Version)
		if err != nil {
			return fmt.Errorf("archive %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(o.Out, name), data, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		sums[name] = hex.EncodeToString(sum[:])
		names = append(names, name)
		if err := npmPlatformPackage(filepath.Join(o.Out, "npm"), o.Version, t, bin); err != nil {
			return fmt.Errorf("npm package for %s/%s: %w", t.OS, t.Arch, err)
		}
	}
	slices.Sort(names)
	var sb strings.Builder
	for _, n := range names {
		fmt.Fprintf(&sb, "%s  %s\n", sums[n], n)
	}
	if err := os.WriteFile(filepath.Join(o.Out, "checksums.txt"), []byte(sb.String()), 0o644); err != nil {
		return err
	}
	if err := npmMainPackage(filepath.Join(o.Out, "npm"), o.Version, targets); err != nil {
		return fmt.Errorf("npm main package: %w", err)
	}
	formula, err := homebrewFormula(o.Version, sums)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.Out, "ply.rb"), []byte(formula), 0o644)
}

// compile builds ply for t into bin: static (no cgo), -trimpath so that
// no path of this machine is in it, no VCS stamp and no build ID (they
// differ between checkouts), the version and commit stamped.
func compile(ctx context.Context, o options, t target, bin string) error {
	ldflags := fmt.Sprintf("-s -w -buildid= -X %s.Version=%s -X %s.Commit=%s", cliPkg, o.Version, cliPkg, o.Commit)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, "./cmd/ply")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=-mod=readonly")
	cmd.Dir = moduleRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build for %s/%s: %w\n%s", t.OS, t.Arch, err, out)
	}
	return nil
}

// moduleRoot is the directory of ply's go.mod: the working directory or
// the one above it (tests run in release/).
func moduleRoot() string {
	for _, d := range []string{".", ".."} {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module "+module+"\n") {
			abs, _ := filepath.Abs(d)
			return abs
		}
	}
	return "."
}

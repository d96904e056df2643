package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

var (
	// plyDir is the directory TestMain makes for the binary and removes
	// after the tests.
	plyDir   string
	plyOnce  sync.Once
	plyBin   string
	plyBuild error
)

// buildPly returns the real binary, built once for all the tests of a run
// (the first test that needs it builds it). It skips in -short mode.
func buildPly(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	plyOnce.Do(func() {
		bin := filepath.Join(plyDir, "ply")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			plyBuild = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		plyBin = bin
	})
	if plyBuild != nil {
		t.Fatal(plyBuild)
	}
	return plyBin
}

// plyCmd is bin run in dir against srv with a fresh PLY_HOME, its output
// and error output caught.
func plyCmd(t *testing.T, bin, dir string, srv *fp.Server, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=k", "OPENAI_MODEL=m", "OPENAI_BASE_URL="+srv.URL,
		"PLY_HOME="+filepath.Join(t.TempDir(), "home"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

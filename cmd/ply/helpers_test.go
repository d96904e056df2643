package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	fp "github.com/plyhq/ply/internal/fakeprovider"
	"github.com/plyhq/ply/internal/plytest"
)

// ply is the binary the process tests run, built once (TestMain removes it).
var ply plytest.Binary

// buildPly returns the real binary, built once for all the tests of a run
// (the first test that needs it builds it). It skips in -short mode.
func buildPly(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return ply.Path(t)
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

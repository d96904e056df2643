// Package plytest builds ply's binary once for the tests of a package
// that run it as a process (the signal tests, the terminal tests). It is
// for tests only; nothing of ply imports it.
package plytest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Binary is ply's binary, built by the first test that asks for it into a
// directory of its own, which Remove deletes (a package's TestMain calls
// it after the tests). The zero value is ready to use.
type Binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Path returns the binary, building it on the first call; a build that
// fails fails the test.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "ply-test-bin-")
		if b.err != nil {
			return
		}
		bin := filepath.Join(b.dir, "ply")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/plyhq/ply/cmd/ply")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building ply: %v\n%s", err, out)
			return
		}
		b.path = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Remove deletes the binary and its directory.
func (b *Binary) Remove() {
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

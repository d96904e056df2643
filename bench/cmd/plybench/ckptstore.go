package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// sourceStore measures the checkpoint store of a real source tree kept
// in git: this module's own files (those git tracks), copied and
// committed in a new repository, after a session whose one prompt writes
// a file. The figure is the store's bytes against those of the files it
// recorded (the copy, .git left out).
func (b *bench) sourceStore(module string) error {
	out, err := exec.CommandContext(b.ctx, "git", "-C", module, "ls-files", "-z").Output()
	if err != nil {
		progress("no source tree for the store figure (git ls-files in %s: %v)", module, err)
		return nil
	}
	dir, err := os.MkdirTemp("", "plybench-source-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var tree int64
	files := 0
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		n, err := copyRegular(filepath.Join(module, rel), filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		if n >= 0 {
			tree += n
			files++
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=plybench", "-c", "user.email=plybench@localhost", "commit", "-q", "-m", "source"}} {
		cmd := exec.CommandContext(b.ctx, "git", append([]string{"-C", dir}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, stderr.String())
		}
	}
	home, err := os.MkdirTemp("", "plybench-source-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	rounds := []round{{calls: []call{{"write_file", map[string]any{"file_path": "plybench-note.txt", "content": "a note"}}}}, {text: "Written."}}
	if _, err := (plyRun{bin: b.bin, dir: dir, home: home, args: []string{"-y", "-p", "write a note"}, rounds: rounds}).run(b.ctx); err != nil {
		return err
	}
	store, err := dirSize(filepath.Join(home, "ply", "checkpoints"))
	if err != nil {
		return err
	}
	progress("source tree: %d files, %.1f MB; checkpoint store %.1f MB", files, float64(tree)/1e6, float64(store)/1e6)
	b.t.add(&row{group: "checkpoint store", name: fmt.Sprintf("this module's sources as a git repository (%d files, %.1f MB): store / tree after one session", files, float64(tree)/1e6),
		unit: unitRatio, target: 0.3, values: []float64{float64(store) / float64(tree)}})
	return nil
}

// copyRegular copies the regular file src to dst, making its directory,
// and returns its size; -1, and nothing copied, for anything else.
func copyRegular(src, dst string) (int64, error) {
	fi, err := os.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return -1, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

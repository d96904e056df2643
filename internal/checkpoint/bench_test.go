package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchFiles is the size of the generated tree: 1,000 files, or
// PLY_CHECKPOINT_BENCH_FILES (e.g. 50000 for the large tree's figure).
func benchFiles() int {
	if n, err := strconv.Atoi(os.Getenv("PLY_CHECKPOINT_BENCH_FILES")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// benchTree writes n files of 1-4 KB, 25 to a directory, and waits out
// the racy window so that the tree counts as settled.
func benchTree(b *testing.B, n int) (root string, rels []string) {
	b.Helper()
	root = b.TempDir()
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n"
	for i := range n {
		rel := fmt.Sprintf("d%03d/e%02d/f%05d.go", i/625, (i/25)%25, i)
		p := filepath.Join(root, rel)
		if i%25 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		data := fmt.Sprintf("// file %d\n%s", i, strings.Repeat(line, 10+i%30))
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
		rels = append(rels, rel)
	}
	time.Sleep(150 * time.Millisecond)
	return root, rels
}

// modes runs f as two sub-benchmarks: a store that scans every time and
// one that keeps a change tracker (Options.Track).
func modes(b *testing.B, f func(b *testing.B, opts Options)) {
	b.Run("scan", func(b *testing.B) { f(b, Options{}) })
	b.Run("tracked", func(b *testing.B) { f(b, Options{Track: true}) })
}

// reportCPU reports the CPU time per op since cpu0, which other work on
// a shared machine does not inflate as it does wall time.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

func BenchmarkCheckpointCold(b *testing.B) { modes(b, benchCold) }

func benchCold(b *testing.B, opts Options) {
	root, _ := benchTree(b, benchFiles())
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s, err := Open(b.TempDir(), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := cpuTime()
		if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - cpu0
		s.Close()
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

func BenchmarkCheckpointUnchanged(b *testing.B) { modes(b, benchUnchanged) }

func benchUnchanged(b *testing.B, opts Options) {
	root, _ := benchTree(b, benchFiles())
	ctx := context.Background()
	s, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime()
	for b.Loop() {
		r, err := s.Checkpoint(ctx, []string{root})
		if err != nil || !r.Reused || r.Read != 0 {
			b.Fatalf("unchanged tree: %+v %v", r, err)
		}
	}
	reportCPU(b, cpu0)
}

func BenchmarkCheckpointOneChanged(b *testing.B) { modes(b, benchOneChanged) }

func benchOneChanged(b *testing.B, opts Options) {
	root, rels := benchTree(b, benchFiles())
	ctx := context.Background()
	s, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
		b.Fatal(err)
	}
	i := 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		i++
		if err := os.WriteFile(filepath.Join(root, rels[i%len(rels)]), []byte(fmt.Sprint("edit ", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := cpuTime()
		if r, err := s.Checkpoint(ctx, []string{root}); err != nil || r.Reused {
			b.Fatalf("one change: %+v %v", r, err)
		}
		cpu += cpuTime() - cpu0
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkRestore100 restores a checkpoint that differs from the
// workspace in 100 files, alternating between two states; each restore
// includes recording the state it leaves (the undo checkpoint).
func BenchmarkRestore100(b *testing.B) { modes(b, benchRestore100) }

func benchRestore100(b *testing.B, opts Options) {
	root, rels := benchTree(b, benchFiles())
	ctx := context.Background()
	s, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a, err := s.Checkpoint(ctx, []string{root})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(root, rels[i*len(rels)/100]), []byte(fmt.Sprint("changed ", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	c, err := s.Checkpoint(ctx, []string{root})
	if err != nil {
		b.Fatal(err)
	}
	ids := []string{a.ID, c.ID}
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := s.Restore(ctx, ids[i%2])
		if err != nil || len(res.Written) != 100 {
			b.Fatalf("restore: wrote %d, %v", len(res.Written), err)
		}
		i++
	}
	reportCPU(b, cpu0)
}

// BenchmarkRestoreWholeTree restores every file of the generated tree
// into a workspace emptied of them: the most contents one restore reads,
// from a pack when the store packed them.
func BenchmarkRestoreWholeTree(b *testing.B) {
	root, _ := benchTree(b, benchFiles())
	ctx := context.Background()
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	full, err := s.Checkpoint(ctx, []string{root})
	if err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
		b.StartTimer()
		cpu0 := cpuTime()
		res, err := s.Restore(ctx, full.ID)
		if err != nil || len(res.Written) != benchFiles() {
			b.Fatalf("restore: wrote %d, %v", len(res.Written), err)
		}
		cpu += cpuTime() - cpu0
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkStoreGrowth reports the store's size after the first
// checkpoint and what 50 checkpoints of 10 edited files each add to it.
func BenchmarkStoreGrowth(b *testing.B) {
	root, rels := benchTree(b, benchFiles())
	ctx := context.Background()
	for b.Loop() {
		s, err := Open(b.TempDir(), Options{Track: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
			b.Fatal(err)
		}
		first := dirBytes(b, s.Dir())
		for c := range 50 {
			for k := range 10 {
				p := filepath.Join(root, rels[(c*10+k)*37%len(rels)])
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					b.Fatal(err)
				}
				fmt.Fprintln(f, "edit", c)
				f.Close()
			}
			if _, err := s.Checkpoint(ctx, []string{root}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(first), "first-B")
		b.ReportMetric(float64(dirBytes(b, s.Dir())-first), "growth-B")
		s.Close()
	}
}

func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkCheckpointUntrustedPlyIgnore is the unchanged tree of a git
// repository in an untrusted folder whose .plyignore excludes every
// tracked file: the worst case of the index lookups, each file asked
// about. The index is read once; a tracked store asks nothing more.
func BenchmarkCheckpointUntrustedPlyIgnore(b *testing.B) {
	root, _ := benchTree(b, benchFiles())
	gitIn(b, root, "init", "-q")
	gitIn(b, root, "add", ".")
	if err := os.WriteFile(filepath.Join(root, ".plyignore"), []byte("*.go\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // out of the racy window, as benchTree does
	ctx := context.Background()
	for _, track := range []bool{false, true} {
		b.Run(map[bool]string{false: "scan", true: "tracked"}[track], func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{Track: track})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if r, err := s.Checkpoint(ctx, []string{root}); err != nil || r.PlyIgnoreOverruled != benchFiles() {
				b.Fatalf("first checkpoint: %d files, %d kept against the .plyignore, %v", r.Files, r.PlyIgnoreOverruled, err)
			}
			cpu0 := cpuTime()
			for b.Loop() {
				r, err := s.Checkpoint(ctx, []string{root})
				if err != nil || !r.Reused || r.Read != 0 {
					b.Fatalf("unchanged tree: %+v %v", r, err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkCheckpointSourceTree is the first checkpoint, in a new store,
// of a real source tree: PLY_CHECKPOINT_SOURCE_TREE, or Go's own sources
// (GOROOT/src). It reports the CPU it takes and the store's size against
// the tree's: the bytes of the files it recorded, and the disk space
// (blocks) of both.
func BenchmarkCheckpointSourceTree(b *testing.B) {
	root := os.Getenv("PLY_CHECKPOINT_SOURCE_TREE")
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			b.Skipf("no source tree: go env GOROOT: %v", err)
		}
		root = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no source tree: %v", err)
	}
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := cpuTime()
		r, err := s.Checkpoint(ctx, []string{root})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - cpu0
		b.StopTimer()
		m, err := s.Load(r.ID)
		if err != nil {
			b.Fatal(err)
		}
		var tree, treeDisk int64
		for _, e := range m.Entries {
			if e.Kind == KindFile {
				tree += e.Size
				treeDisk += diskBytes(b, filepath.Join(root, filepath.FromSlash(e.Rel)))
			}
		}
		var store, storeDisk int64
		filepath.WalkDir(s.Dir(), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				store += fileBytes(p)
				storeDisk += diskBytes(b, p)
			}
			return nil
		})
		b.ReportMetric(float64(tree), "tree-B")
		b.ReportMetric(float64(store)/float64(tree), "store/tree")
		b.ReportMetric(float64(storeDisk)/float64(treeDisk), "store/tree-disk")
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

func fileBytes(p string) int64 {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

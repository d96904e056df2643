package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	fp "github.com/plyhq/ply/internal/fakeprovider"
)

// checkpointScale measures what checkpoints cost a session in a tree of
// files files of about 10 KB (generated once under cache): process start
// → first request byte with checkpoints on and off (the first checkpoint
// must not hold it up), the first writing batch, a write_file, which
// saves its file ahead of that checkpoint rather than wait for it, and `ply rewind --list` after a session of two prompts.
func (b *bench) checkpointScale(cache string, files int) error {
	dir := filepath.Join(cache, fmt.Sprintf("ckpt-%d", files))
	if err := scaleTree(dir, files); err != nil {
		return err
	}
	group := fmt.Sprintf("checkpoints, %d-file tree", files)
	off := `{"checkpointing": {"enabled": false}}`
	hello := plyRun{bin: b.bin, dir: dir, args: []string{"-y", "-p", "say hello"}, rounds: []round{{text: "Hello."}}}
	var on, offs, ratio []float64
	for i := range b.n + 1 { // the first pair warms up
		r, err := hello.run(b.ctx)
		if err != nil {
			return err
		}
		h := hello
		h.settings = off
		ro, err := h.run(b.ctx)
		if err != nil {
			return err
		}
		if i > 0 {
			on, offs = append(on, float64(r.startup)), append(offs, float64(ro.startup))
			ratio = append(ratio, float64(r.startup)/float64(ro.startup))
		}
	}
	b.t.add(&row{group: group, name: "process start → first request byte, checkpoints on", unit: unitDuration, values: on})
	b.t.add(&row{group: group, name: "the same, checkpoints off", unit: unitDuration, values: offs})
	b.t.add(&row{group: group, name: "on / off, run by run", unit: unitRatio, target: 1.5, values: ratio})

	// A session of two prompts that each write a file, in a home kept for
	// the listing; the first write saves its file ahead of the first
	// checkpoint.
	home, err := os.MkdirTemp("", "plybench-ckpt-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	note := filepath.Join(dir, "plybench-note.txt")
	defer os.Remove(note)
	write := func(text string) []round {
		return []round{{calls: []call{{"write_file", map[string]any{"file_path": "plybench-note.txt", "content": text}}}}, {text: "Written."}}
	}
	var waits []float64
	for i, args := range [][]string{{"-y", "-p", "write a note"}, {"-y", "--continue", "-p", "write another"}} {
		t0 := time.Now()
		r, err := plyRun{bin: b.bin, dir: dir, home: home, args: args, rounds: write(fmt.Sprint("note ", i))}.run(b.ctx)
		if err != nil {
			return err
		}
		progress("%d files, prompt %d: the write's result sent after %s (run %s)", files, i+1, r.at[1].Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
		waits = append(waits, float64(r.at[1]-r.server[0]))
	}
	b.t.add(&row{group: group, name: "first writing batch (write_file): start → its result sent (cold store: saves its file ahead of the first checkpoint)", unit: unitDuration, values: waits[:1]})
	b.t.add(&row{group: group, name: "the same in a second process (warm store: a stat scan)", unit: unitDuration, values: waits[1:]})

	store, err := dirSize(filepath.Join(home, "ply", "checkpoints"))
	if err != nil {
		return err
	}
	tree, err := dirSize(dir)
	if err != nil {
		return err
	}
	b.t.add(&row{group: group, name: "store / tree after the two prompts (generated text, random hex)", unit: unitRatio, target: 0.3, values: []float64{float64(store) / float64(tree)}})

	list := plyRun{bin: b.bin, dir: dir, home: home, args: []string{"rewind", "--list"},
		check: func(out string, _ []fp.Request) error {
			if !strings.Contains(out, "changed since") {
				return fmt.Errorf("rewind --list printed %q", out)
			}
			return nil
		}}
	rs, err := b.repeat(list, b.n)
	if err != nil {
		return err
	}
	b.t.add(&row{group: group, name: "`ply rewind --list`, process start → exit", unit: unitDuration, target: float64(200 * time.Millisecond),
		values: pick(rs, func(r runResult) float64 { return float64(r.wall) })})
	b.t.add(&row{group: group, name: "`ply rewind --list` peak RSS", unit: unitBytes, target: 120 << 20,
		values: pick(rs, func(r runResult) float64 { return r.maxRSS })})
	return nil
}

// scaleTree generates files files of 2–18 KB of text under dir, 50 to a
// directory, unless a stamp says it was done.
func scaleTree(dir string, files int) error {
	stamp := filepath.Join(dir, ".plybench-done")
	if _, err := os.Stat(stamp); err == nil {
		return nil
	}
	os.RemoveAll(dir)
	progress("generating %d files in %s", files, dir)
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			var line strings.Builder
			for i := w; i < files; i += len(errs) {
				p := filepath.Join(dir, fmt.Sprintf("d%03d/e%02d/f%02d.txt", i/5000, i/50%100, i%50))
				if i%50 < len(errs) { // the first file of the directory this worker writes
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						errs[w] = err
						return
					}
				}
				line.Reset()
				for size := 2<<10 + rng.IntN(16<<10); line.Len() < size; {
					fmt.Fprintf(&line, "line %d of file %d: %x\n", line.Len(), i, rng.Uint64())
				}
				if err := os.WriteFile(p, []byte(line.String()), 0o644); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.WriteFile(stamp, nil, 0o644)
}

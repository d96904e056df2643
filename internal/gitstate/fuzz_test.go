package gitstate

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// seedRepo returns the files of a small packed repository to seed the
// fuzzers: its index, a pack index, the pack, its configuration. Without
// git the fuzzers keep their hand-written seeds.
func seedRepo(f *testing.F) map[string][]byte {
	f.Helper()
	out := map[string][]byte{}
	if _, err := exec.LookPath("git"); err != nil {
		return out
	}
	dir := f.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if b, err := cmd.CombinedOutput(); err != nil {
			f.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	run("init", "-q")
	text := strings.Repeat("a line that repeats\n", 50)
	for i := 0; i < 3; i++ {
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte(text+strings.Repeat("x", i)), 0o644)
		os.MkdirAll(filepath.Join(dir, "d"), 0o755)
		os.WriteFile(filepath.Join(dir, "d", "g"), []byte{byte(i)}, 0o644)
		run("add", "-A")
		run("commit", "-qm", "c")
	}
	run("gc", "-q", "--aggressive")
	run("update-index", "--index-version", "4")
	for _, name := range []string{"index", "config"} {
		out[name], _ = os.ReadFile(filepath.Join(dir, ".git", name))
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) > 0 {
		out["idx"], _ = os.ReadFile(packs[0])
		out["pack"], _ = os.ReadFile(strings.TrimSuffix(packs[0], ".idx") + ".pack")
	}
	return out
}

func FuzzIndex(f *testing.F) {
	f.Add([]byte("DIRC"))
	if b := seedRepo(f)["index"]; b != nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseIndex(data, 100)
		if err != nil {
			return
		}
		if len(idx.Entries) > 100 {
			t.Fatalf("%d entries past the cap", len(idx.Entries))
		}
		for i := 1; i < len(idx.Entries); i++ {
			if idx.Entries[i-1].Path >= idx.Entries[i].Path {
				t.Fatalf("entries out of order: %q, %q", idx.Entries[i-1].Path, idx.Entries[i].Path)
			}
		}
	})
}

// The index's checksum stops most mutations at the door: this fuzzer
// fixes it up so that the parser's body is reached.
func FuzzIndexBody(f *testing.F) {
	if b := seedRepo(f)["index"]; len(b) > 20 {
		f.Add(b[:len(b)-20])
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00TREE\x00\x00\x00\x06\x00-1 0\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha1Sum(body)
		parseIndex(append(body[:len(body):len(body)], sum[:]...), 100)
	})
}

func FuzzPackIdx(f *testing.F) {
	if b := seedRepo(f)["idx"]; b != nil {
		f.Add(b, []byte(strings.Repeat("\x00", 20)))
	}
	f.Add([]byte("\xfftOc\x00\x00\x00\x02"), []byte("x"))
	f.Fuzz(func(t *testing.T, data, key []byte) {
		p, err := parseIdx(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var id oid
		copy(id[:], key)
		p.find(id)
		p.neighbours(id)
		for i := 0; i < p.n && i < 64; i++ {
			p.offset(i)
		}
	})
}

// FuzzPack reads the pack entries the seed's index lists out of a
// mutated pack.
func FuzzPack(f *testing.F) {
	seeds := seedRepo(f)
	if seeds["pack"] != nil {
		f.Add(seeds["pack"])
	}
	f.Add([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01\x95\x0ax\x9c"))
	idx, _ := parseIdx(bytes.NewReader(seeds["idx"]), int64(len(seeds["idx"])))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := &pack{f: bytes.NewReader(data), size: int64(len(data))}
		s := &store{packs: []*pack{p}}
		if idx != nil {
			p.ix, p.ixSize, p.fan, p.n = idx.ix, idx.ixSize, idx.fan, idx.n
			for i := 0; i < p.n; i++ {
				if off, err := p.offset(i); err == nil {
					p.readAt(s, off, 0)
				}
			}
			return
		}
		p.readAt(s, 12, 0)
	})
}

func FuzzDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte("\x0b\x0e\x91\x00\x05\x05 moon\x00"))
	f.Add([]byte(""), []byte("\x00\x03\x03abc"))
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta, 1<<20)
		if err != nil {
			return
		}
		size, n := binary.Uvarint(delta)
		if n <= 0 || size != uint64(len(base)) {
			t.Fatal("a delta for another base was applied")
		}
		want, _ := binary.Uvarint(delta[n:])
		if uint64(len(out)) != want {
			t.Fatalf("result of %d bytes, want %d", len(out), want)
		}
	})
}

func FuzzLooseObject(f *testing.F) {
	var b bytes.Buffer
	z := zlibWriter(&b)
	z.Write([]byte("blob 3\x00abc"))
	z.Close()
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, body, err := inflateLoose(data)
		if err == nil && (typ < typeCommit || typ > typeTag || len(body) > maxObject) {
			t.Fatalf("type %d, %d bytes", typ, len(body))
		}
	})
}

func FuzzTree(f *testing.F) {
	f.Add([]byte("100644 a\x00" + strings.Repeat("\x01", 20) + "40000 d\x00" + strings.Repeat("\x02", 20)))
	f.Add([]byte("160000 s\x00" + strings.Repeat("\x03", 20)))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseTree(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Name == "" || strings.Contains(e.Name, "/") {
				t.Fatalf("bad name %q", e.Name)
			}
		}
	})
}

func FuzzCommit(f *testing.F) {
	p := strings.Repeat("1", 40)
	f.Add([]byte("tree " + p + "\nparent " + p + "\nauthor a <a> 1 +0000\ncommitter c <c> 1700000000 +0000\n\nsubject\n\nbody\n"))
	f.Add([]byte("tree " + p + "\nauthor a <a> 1 +0000\ncommitter c <c> x\nencoding latin1\n\n\n  two\nlines \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseCommit(oid{}, data)
		if err != nil {
			return
		}
		if strings.Contains(c.Subject, "\n") {
			t.Fatalf("subject %q spans lines", c.Subject)
		}
	})
}

func FuzzConfig(f *testing.F) {
	if b := seedRepo(f)["config"]; b != nil {
		f.Add(b)
	}
	f.Add([]byte("[core]\n\tfileMode = false ; comment\n[remote \"o\\\"x\"]\n\turl = \"a b\" c\\\n d\n[a.B]\nbare\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseConfig(data)
		if err != nil {
			return
		}
		s := &settings{fileMode: true}
		for _, e := range entries {
			if e.Key == "" || strings.HasSuffix(e.Key, ".") {
				t.Fatalf("bad key %q", e.Key)
			}
			s.apply(e, "/home")
		}
	})
}

func FuzzAttributes(f *testing.F) {
	f.Add([]byte("*.png binary\n*.txt text eol=lf\n[attr]x -diff\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !attributesChangeContent(data) && bytes.Contains(data, []byte(" filter=")) && !bytes.Contains(data, []byte{'"'}) &&
			!bytes.Contains(data, []byte{'\r'}) && !bytes.Contains(data, []byte("#")) {
			t.Fatalf("a filter went unnoticed in %q", data)
		}
	})
}

func FuzzQuotePath(f *testing.F) {
	f.Add("a b/é\t\"x\\", "a/")
	f.Fuzz(func(t *testing.T, path, prefix string) {
		q := quotePath(path)
		if strings.ContainsAny(q, "\n\t") || (q != path && !strings.HasPrefix(q, `"`)) {
			t.Fatalf("quotePath(%q) = %q", path, q)
		}
		relativePath(path, prefix)
	})
}

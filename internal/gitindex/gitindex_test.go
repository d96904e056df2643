package gitindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// entryV2 is one version-2 entry for path with hashLen-byte id.
func entryV2(path string, mode uint32, hashLen int, flags uint16) []byte {
	var b bytes.Buffer
	var fixed [40]byte
	binary.BigEndian.PutUint32(fixed[24:], mode)
	binary.BigEndian.PutUint32(fixed[36:], 7) // size
	b.Write(fixed[:])
	b.Write(bytes.Repeat([]byte{0xab}, hashLen))
	binary.Write(&b, binary.BigEndian, flags|uint16(min(len(path), 0xfff)))
	b.WriteString(path)
	n := 40 + hashLen + 2 + len(path)
	b.Write(make([]byte, 8-n%8))
	return b.Bytes()
}

func index(version uint32, hashLen int, entries [][]byte, ext ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, version)
	binary.Write(&b, binary.BigEndian, uint32(len(entries)))
	for _, e := range entries {
		b.Write(e)
	}
	for _, e := range ext {
		b.Write(e)
	}
	b.Write(make([]byte, hashLen)) // checksum: not verified here
	return b.Bytes()
}

func TestParseVersion2(t *testing.T) {
	for _, hashLen := range []int{20, 32} {
		ext := append([]byte("TREE\x00\x00\x00\x03"), "abc"...)
		data := index(2, hashLen, [][]byte{entryV2("a.go", 0o100644, hashLen, 0), entryV2("dir/b.go", 0o100755, hashLen, 0x2000)}, ext)
		idx, err := Parse(data, hashLen, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx.Entries) != 2 || idx.Entries[0].Path != "a.go" || idx.Entries[1].Path != "dir/b.go" ||
			idx.Entries[1].Mode != 0o100755 || idx.Entries[1].Flags&FlagStage != 0x2000 || len(idx.Entries[0].ID) != hashLen ||
			idx.Entries[0].Size != 7 {
			t.Fatalf("hash %d: entries %+v", hashLen, idx.Entries)
		}
		if len(idx.Extensions) != 1 || idx.Extensions[0].Sig != "TREE" || string(idx.Extensions[0].Data) != "abc" {
			t.Fatalf("extensions %+v", idx.Extensions)
		}
	}
}

func TestParseRefusesBadLayouts(t *testing.T) {
	good := index(2, 20, [][]byte{entryV2("a.go", 0o100644, 20, 0)})
	for name, data := range map[string][]byte{
		"short":             good[:20],
		"signature":         append([]byte("DIRX"), good[4:]...),
		"version 5":         append(append([]byte("DIRC"), 0, 0, 0, 5), good[8:]...),
		"entry truncated":   append(good[:40], make([]byte, 20)...),
		"too many entries":  append(append([]byte("DIRC"), good[4:8]...), append([]byte{0, 0, 0, 9}, good[12:]...)...),
		"trailing bytes":    index(2, 20, [][]byte{entryV2("a.go", 0o100644, 20, 0)}, []byte{1, 2, 3}),
		"extension too big": index(2, 20, nil, []byte("TREE\x00\x00\x01\x00")),
		"extended in v2":    index(2, 20, [][]byte{entryV2("a.go", 0o100644, 20, FlagExtended)}),
		"empty path":        index(2, 20, [][]byte{entryV2("", 0o100644, 20, 0)}),
	} {
		if _, err := Parse(data, 20, 5); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
}

// Indexes git writes, versions 2 to 4, read to the paths git lists.
func TestParseWhatGitWrites(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	// Version 3 only when an entry has extended flags (intent to add).
	for _, version := range []string{"2", "3", "4"} {
		dir := t.TempDir()
		git := func(args ...string) []byte {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return out
		}
		git("init", "-q")
		for _, p := range []string{"a.go", "pkg/long/name/file.go", "pkg/long/name/other.go", "pkg/short.go", "z"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
			os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644)
		}
		git("add", ".")
		if version != "2" {
			os.WriteFile(filepath.Join(dir, "pkg/later.go"), nil, 0o644)
			git("add", "-N", "pkg/later.go")
		}
		git("update-index", "--index-version", version)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		idx, err := Parse(data, 20, 100)
		if err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		var got []string
		for _, e := range idx.Entries {
			got = append(got, e.Path)
			if (e.ExtFlags != 0) != (e.Path == "pkg/later.go") {
				t.Fatalf("version %s: %s has extended flags %#x", version, e.Path, e.ExtFlags)
			}
		}
		want := bytes.Fields(git("ls-files"))
		if len(got) != len(want) || idx.Version != uint32(version[0]-'0') {
			t.Fatalf("version %s (read %d): %q, want %q", version, idx.Version, got, want)
		}
		for i := range want {
			if got[i] != string(want[i]) {
				t.Fatalf("version %s: %q, want %q", version, got, want)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(index(2, 20, [][]byte{entryV2("a.go", 0o100644, 20, 0)}), 20)
	f.Add(index(3, 32, [][]byte{entryV2("b", 0o120000, 32, 0)}), 32)
	f.Add(index(4, 20, nil, []byte("link\x00\x00\x00\x00")), 20)
	f.Fuzz(func(t *testing.T, data []byte, hashLen int) {
		if hashLen != 20 && hashLen != 32 {
			return
		}
		idx, err := Parse(data, hashLen, 1000)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
			return
		}
		if n := binary.BigEndian.Uint32(data[8:]); int(n) != len(idx.Entries) {
			t.Fatalf("%d entries read, the header says %d", len(idx.Entries), n)
		}
		for _, e := range idx.Entries {
			if e.Path == "" || len(e.ID) != hashLen {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

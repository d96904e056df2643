package worktree

import (
	"strings"
	"testing"
)

func FuzzParseList(f *testing.F) {
	f.Add([]byte("worktree /r\x00HEAD abc\x00branch refs/heads/main\x00\x00worktree /r/.ply/worktrees/a\x00HEAD def\x00detached\x00\x00"))
	f.Add([]byte("HEAD x\x00branch y\x00"))
	f.Add([]byte("worktree \x00locked reason\x00prunable gone\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		list := ParseList(b)
		if n := strings.Count(string(b), "worktree "); len(list) > n {
			t.Fatalf("%d worktrees from %d records", len(list), n)
		}
		for _, w := range list {
			if w.Path == "" {
				t.Fatalf("a worktree without a path: %+v", w)
			}
		}
	})
}

func FuzzParseNumstat(f *testing.F) {
	f.Add([]byte("1\t2\ta.txt\x00-\t-\tbin\x00"))
	f.Add([]byte("x\ty\tz\x00\t\t\x003\t4\t\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range ParseNumstat(b) {
			if s.Path == "" || s.Added < 0 || s.Deleted < 0 || s.Binary && (s.Added != 0 || s.Deleted != 0) {
				t.Fatalf("bad stat %+v", s)
			}
		}
	})
}

func FuzzValidName(f *testing.F) {
	for _, s := range []string{"a", "fix-1", "../x", "a/b", "x.lock", ".hidden", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidName(name) != nil {
			return
		}
		if strings.ContainsAny(name, "/\\ \x00:~^?*[") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, ".") || strings.Contains(name, "..") {
			t.Fatalf("ValidName accepted %q", name)
		}
	})
}

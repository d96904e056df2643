package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzUserReadable checks that no PATH, however written, opens the root,
// the home directory or one of its ancestors to a read-only command, and
// that only absolute paths come out.
func FuzzUserReadable(f *testing.F) {
	f.Add("/root", "/usr/bin:/root:/:/root/bin", "")
	f.Add("/home/u", "/home:/home/u/.local/bin:relative:", "/home/u/.cfg")
	f.Add("/home/u/", "//home//u/..//u:/usr/./bin", "")
	f.Add("", "/usr/bin::", "rel")
	f.Add("/tmp", "/tmp:/tmp/..:/usr", "/")
	f.Fuzz(func(t *testing.T, home, path, xdg string) {
		if strings.ContainsRune(home+path+xdg, 0) {
			t.Skip()
		}
		r := userReadable([]string{"HOME=" + home, "PATH=" + path, "XDG_CONFIG_HOME=" + xdg})
		h := filepath.Clean(home)
		for _, d := range r.dirs {
			if !filepath.IsAbs(d) || d == "/" {
				t.Fatalf("dir %q from PATH %q", d, path)
			}
			if filepath.IsAbs(h) && within(d, h) {
				t.Fatalf("dir %q opens home %q", d, home)
			}
		}
		for _, p := range r.files {
			if !filepath.IsAbs(p) {
				t.Fatalf("file %q", p)
			}
		}
	})
}

// FuzzGitIncludePaths checks the reading of git's include sections: any
// text gives clean, non-empty paths, and a plain path written in an
// include section is found, whatever text comes before it.
func FuzzGitIncludePaths(f *testing.F) {
	f.Add("[user]\n\tname = x\n", "~/.gitconfig-work")
	f.Add("[includeIf \"gitdir:~/w/\"]\n\tpath = a\n[core]\n\tpath = no\n", "rel/x")
	f.Add("[include] path = \"quoted # not a comment\"\n", "/abs/p")
	f.Add("[include\npath=", "p")
	f.Fuzz(func(t *testing.T, text, path string) {
		for _, p := range gitIncludePaths(text) {
			if p == "" || strings.TrimSpace(p) != p && !strings.ContainsAny(p, `"`) || strings.Contains(p, "\n") {
				t.Fatalf("path %q from %q", p, text)
			}
		}
		if path == "" || strings.ContainsAny(path, "\"#;\n\r[]=\\") || strings.TrimSpace(path) != path {
			return
		}
		got := gitIncludePaths(text + "\n[Include]\n\tPath = " + path + " ; comment\n")
		if len(got) == 0 || got[len(got)-1] != path {
			t.Fatalf("path %q not found last in %q", path, got)
		}
	})
}

func TestGitIncludePaths(t *testing.T) {
	text := `[user]
	path = not-an-include
[include]
	path = ~/.a
	PATH = "b c" # quoted
[includeIf "gitdir:~/work/"]
	path = rel/d ; comment
[core]
	path = no`
	got := strings.Join(gitIncludePaths(text), "|")
	if got != "~/.a|b c|rel/d" {
		t.Fatalf("got %q", got)
	}
}

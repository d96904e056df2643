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

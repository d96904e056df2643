package safegit

import (
	"strconv"
	"strings"
	"testing"
)

// Whatever git config prints, the overrides are well-formed: numbered
// from env's count on without a gap, each a key git would take for one
// of the driver settings, and the count last.
func FuzzOverrides(f *testing.F) {
	f.Add([]byte("local\x00filter.x.clean\ntouch m\x00local\x00diff.y.textconv\ncat\x00global\x00filter.lfs.process\ngit-lfs\x00"))
	f.Add([]byte("local\x00submodule.a b.ignore\nnone\x00worktree\x00diff.external\nx\x00command\x00diff.a.b.command\x00"))
	f.Add([]byte("local\x00filter\x00local\x00diff.\n\x00"))
	f.Fuzz(func(t *testing.T, out []byte) {
		var o overrides
		o.addScoped(out)
		env := o.appendTo([]string{"PATH=/bin", "GIT_CONFIG_COUNT=3"})
		if len(o.kv) == 0 {
			if len(env) != 2 {
				t.Fatalf("env changed without overrides: %q", env)
			}
			return
		}
		if env[len(env)-1] != "GIT_CONFIG_COUNT="+strconv.Itoa(3+len(o.kv)) {
			t.Fatalf("count: %q", env[len(env)-1])
		}
		for i, kv := range o.kv {
			n := strconv.Itoa(3 + i)
			if env[2+2*i] != "GIT_CONFIG_KEY_"+n+"="+kv[0] || env[3+2*i] != "GIT_CONFIG_VALUE_"+n+"="+kv[1] {
				t.Fatalf("entry %d: %q %q", i, env[2+2*i], env[3+2*i])
			}
			k := kv[0]
			ok := k == "diff.external" ||
				strings.HasPrefix(k, "filter.") && hasAnySuffix(k, ".clean", ".smudge", ".process", ".required") ||
				strings.HasPrefix(k, "diff.") && hasAnySuffix(k, ".textconv", ".command") ||
				strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".ignore") && kv[1] == "dirty"
			if !ok || strings.ContainsAny(k, "\x00\n") {
				t.Fatalf("unexpected override %q=%q", k, kv[1])
			}
		}
	})
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

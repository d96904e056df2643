package tools

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestTempName(t *testing.T) {
	name := TempName("main.go")
	pid, ok := IsTempName(name)
	if !ok || pid != os.Getpid() || !strings.HasPrefix(name, ".main.go.ply-tmp-") {
		t.Fatalf("TempName = %q: IsTempName says %d %v", name, pid, ok)
	}
	if StaleTemp(name, time.Now().Add(-48*time.Hour)) {
		t.Fatal("a live writer's temporary file is taken as stale")
	}
	if long := TempName(strings.Repeat("x", 300)); len(long) > 255 {
		t.Fatalf("a temporary name of %d bytes", len(long))
	}
	for _, tc := range []struct {
		name  string
		temp  bool
		stale bool // when a day old
	}{
		{".a.go.ply-tmp-3k2j1x", true, true}, // an older ply's, without a pid
		{".ply-restore-0123456789ab", true, true},
		{"a.go.ply-tmp-123-abc", false, false}, // not hidden
		{".a.go.ply-tmp-", false, false},
		{".a.go.ply-tmp-12-AB", false, false},
		{".a.go.ply-tmp-x-ab", false, false},
		{"notes.txt", false, false},
		{".ply-restore-", false, false},
	} {
		_, ok := IsTempName(tc.name)
		if ok != tc.temp {
			t.Errorf("IsTempName(%q) = %v, want %v", tc.name, ok, tc.temp)
		}
		if got := StaleTemp(tc.name, time.Now().Add(-25*time.Hour)); got != tc.stale {
			t.Errorf("StaleTemp(%q, a day old) = %v, want %v", tc.name, got, tc.stale)
		}
		if StaleTemp(tc.name, time.Now()) {
			t.Errorf("StaleTemp(%q, just written) = true", tc.name)
		}
	}
}
